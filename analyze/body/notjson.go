package body

import (
	"encoding/json"
	"errors"
	"fmt"
)

// notJSON describes a body that does not parse as JSON by where it breaks,
// never by its content: a capture's bodies may hold secrets, and the
// parser's own message quotes the text around the error.
func notJSON(what string, b []byte) error {
	var v any
	var se *json.SyntaxError
	if err := json.Unmarshal(b, &v); errors.As(err, &se) {
		return fmt.Errorf("%s is not JSON: invalid at byte %d of %d", what, se.Offset, len(b))
	}
	if len(b) == 0 {
		return fmt.Errorf("%s is empty", what)
	}
	return fmt.Errorf("%s is not JSON (%d bytes)", what, len(b))
}
