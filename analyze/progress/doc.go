// Package progress is the progress loop profile's detector: it scores
// what is new in each request of an agent rather than its last user
// message (docs/progress.md is the reference, with the figures).
//
// A request is one step (Features, Extractor.Extract): the action of the
// agent's last turn (its tool calls, or the command its text holds: a
// <function=…> block, a <command> element, a fenced block, an "Action:"
// line), the observation that came back (tool results and the user turns
// after that turn) and the answer (the response). Values where progress
// lives are kept exactly (arguments with their case, numbers in results);
// churn is replaced (identifiers, timestamps, durations, the shell's line
// counter, arguments echoed back). An observation is an error (is_error,
// an error word, a non-zero exit status) or empty (no words, only markup
// and an exit status, or a short "no matches").
//
// The Detector keeps an agent's last Window steps and scores each request
// by the largest of its signals (Signal):
//
//   - repeat: the same action and observation step after step, or with
//     only a counter of the arguments moved on (1 each, 1.5 for errors);
//   - cycle: a cycle of up to maxPeriod steps with the same observations;
//   - recur: the same action and error anywhere in the window (1.5 each);
//   - reapply: the same body (a multi-line argument of minBodyWords
//     words or more) written again, whatever the result (1.5 each);
//   - churn: the same tool with changing arguments and the same
//     observation (any action, for an error that echoes none of them);
//     never for an empty or a short successful observation;
//   - answer: the same text answer with no tool use.
//
// A pause long against the agent's pace before a request that starts
// anew (no assistant turn) starts a new session: the history before it is
// not compared. Result.Reason explains every score.
package progress
