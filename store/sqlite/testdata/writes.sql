-- killswitch state writes (SPEC §4.2), in replay order, times from the capture.
-- Applies to a fresh SQLite database or to an existing AgentGazer database, in one
-- transaction; applying it twice leaves the same state (events and alerts have
-- deterministic ids and are inserted only if absent). Webhook posts are not SQL:
-- the alerts table records them.
BEGIN;
CREATE TABLE IF NOT EXISTS agents (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL UNIQUE,
  name TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  deactivated_by TEXT,
  budget_limit REAL,
  allowed_hours_start INTEGER,
  allowed_hours_end INTEGER,
  kill_switch_enabled INTEGER NOT NULL DEFAULT 0,
  kill_switch_window_size INTEGER NOT NULL DEFAULT 20,
  kill_switch_threshold REAL NOT NULL DEFAULT 10.0,
  created_at TEXT,
  updated_at TEXT
);
CREATE TABLE IF NOT EXISTS agent_events (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  provider TEXT,
  model TEXT,
  requested_model TEXT,
  tokens_in INTEGER,
  tokens_out INTEGER,
  tokens_total INTEGER,
  cost_usd REAL,
  latency_ms INTEGER,
  ttft_ms INTEGER,
  status_code INTEGER,
  error_message TEXT,
  tags TEXT DEFAULT '{}',
  source TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  trace_id TEXT,
  span_id TEXT,
  parent_span_id TEXT,
  created_at TEXT
);
CREATE TABLE IF NOT EXISTS alerts (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  rule_type TEXT NOT NULL,
  message TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  body TEXT NOT NULL
);
INSERT OR IGNORE INTO agents (id, agent_id, name, active, deactivated_by, kill_switch_enabled, kill_switch_window_size, kill_switch_threshold, created_at, updated_at) VALUES ('d0c44e4a-37e7-5ded-bd75-f74a1ea46606', 'support-bot', NULL, 1, NULL, 1, 20, 10.0, '2026-01-02T03:04:05.000Z', '2026-01-02T03:04:05.000Z');
UPDATE agents SET kill_switch_enabled = 1, kill_switch_window_size = 5, kill_switch_threshold = 12.0, updated_at = '2026-01-02T03:04:05.000Z' WHERE agent_id = 'support-bot';
UPDATE agents SET active = 0, deactivated_by = 'kill_switch', updated_at = '2026-01-02T03:04:07.000Z' WHERE agent_id = 'support-bot';
INSERT OR IGNORE INTO agent_events (id, agent_id, event_type, provider, model, requested_model, tokens_in, tokens_out, tokens_total, cost_usd, latency_ms, ttft_ms, status_code, error_message, tags, source, timestamp, trace_id, span_id, parent_span_id, created_at) VALUES ('c510b171-6103-5d1a-9f94-5f0a8944561d', 'support-bot', 'blocked', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 403, NULL, '{"block_reason":"loop_detected","block_message":"Agent loop detected (score: 13.0). Agent deactivated to prevent runaway costs."}', 'proxy', '2026-01-02T03:04:07.000Z', NULL, NULL, NULL, '2026-01-02T03:04:07.000Z');
INSERT OR IGNORE INTO agent_events (id, agent_id, event_type, provider, model, requested_model, tokens_in, tokens_out, tokens_total, cost_usd, latency_ms, ttft_ms, status_code, error_message, tags, source, timestamp, trace_id, span_id, parent_span_id, created_at) VALUES ('50cae16f-ac7b-5512-8975-1a68cb25a248', 'support-bot', 'kill_switch', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 200, NULL, '{"loop_score":13,"threshold":12,"window_size":5,"similar_prompts":4,"similar_responses":3,"repeated_tool_calls":2,"action":"deactivated"}', 'proxy', '2026-01-02T03:04:07.000Z', NULL, NULL, NULL, '2026-01-02T03:04:07.000Z');
INSERT OR IGNORE INTO alerts (id, agent_id, rule_type, message, timestamp, body) VALUES ('6e574a05-945f-540b-b8aa-34cb8881e6c5', 'support-bot', 'kill_switch', ('Kill switch triggered for agent "support-bot"'||char(10)||'Loop score: 13.0 (threshold: 12)'||char(10)||'Details: 4 similar prompts, 3 similar responses, 2 repeated tool calls'||char(10)||'Window size: 5'), '2026-01-02T03:04:07.000Z', '{"agent_id":"support-bot","rule_type":"kill_switch","message":"Kill switch triggered for agent \"support-bot\"\nLoop score: 13.0 (threshold: 12)\nDetails: 4 similar prompts, 3 similar responses, 2 repeated tool calls\nWindow size: 5","timestamp":"2026-01-02T03:04:07.000Z"}');
INSERT OR IGNORE INTO agent_events (id, agent_id, event_type, provider, model, requested_model, tokens_in, tokens_out, tokens_total, cost_usd, latency_ms, ttft_ms, status_code, error_message, tags, source, timestamp, trace_id, span_id, parent_span_id, created_at) VALUES ('161947f8-352f-5430-9b03-10b5a3945d55', 'support-bot', 'blocked', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 403, NULL, '{"block_reason":"inactive","block_message":"Agent is inactive (deactivated by kill_switch)."}', 'proxy', '2026-01-02T03:04:08.000Z', NULL, NULL, NULL, '2026-01-02T03:04:08.000Z');
UPDATE agents SET active = 1, deactivated_by = NULL, updated_at = '2026-01-02T03:04:09.000Z' WHERE agent_id = 'support-bot';
UPDATE agents SET active = 0, deactivated_by = 'manual', updated_at = '2026-01-02T03:04:10.000Z' WHERE agent_id = 'support-bot';
INSERT OR IGNORE INTO agent_events (id, agent_id, event_type, provider, model, requested_model, tokens_in, tokens_out, tokens_total, cost_usd, latency_ms, ttft_ms, status_code, error_message, tags, source, timestamp, trace_id, span_id, parent_span_id, created_at) VALUES ('76bac732-598b-5a6b-bf6f-4c2ec1db78c5', 'support-bot', 'blocked', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 403, NULL, '{"block_reason":"inactive","block_message":"Agent is inactive (deactivated by manual)."}', 'proxy', '2026-01-02T03:04:11.000Z', NULL, NULL, NULL, '2026-01-02T03:04:11.000Z');
INSERT OR IGNORE INTO agents (id, agent_id, name, active, deactivated_by, kill_switch_enabled, kill_switch_window_size, kill_switch_threshold, created_at, updated_at) VALUES ('ab8b14af-c6ab-5314-b4df-86cfe53fabea', ('o''brien\'||char(0,10)||'; DROP TABLE agents; --é'||CAST(X'FF' AS TEXT)), NULL, 1, NULL, 1, 20, 10.0, '2026-01-02T03:04:12.250Z', '2026-01-02T03:04:12.250Z');
UPDATE agents SET active = 0, deactivated_by = 'kill_switch', updated_at = '2026-01-02T03:04:12.250Z' WHERE agent_id = ('o''brien\'||char(0,10)||'; DROP TABLE agents; --é'||CAST(X'FF' AS TEXT));
INSERT OR IGNORE INTO agent_events (id, agent_id, event_type, provider, model, requested_model, tokens_in, tokens_out, tokens_total, cost_usd, latency_ms, ttft_ms, status_code, error_message, tags, source, timestamp, trace_id, span_id, parent_span_id, created_at) VALUES ('0885c797-68e9-5908-92d0-b89f91f48b80', ('o''brien\'||char(0,10)||'; DROP TABLE agents; --é'||CAST(X'FF' AS TEXT)), 'blocked', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 403, NULL, '{"block_reason":"loop_detected","block_message":"Agent loop detected (score: 10.5). Agent deactivated to prevent runaway costs."}', 'proxy', '2026-01-02T03:04:12.250Z', NULL, NULL, NULL, '2026-01-02T03:04:12.250Z');
INSERT OR IGNORE INTO agent_events (id, agent_id, event_type, provider, model, requested_model, tokens_in, tokens_out, tokens_total, cost_usd, latency_ms, ttft_ms, status_code, error_message, tags, source, timestamp, trace_id, span_id, parent_span_id, created_at) VALUES ('765a288b-9c1f-57ef-8d3f-6865af98159f', ('o''brien\'||char(0,10)||'; DROP TABLE agents; --é'||CAST(X'FF' AS TEXT)), 'kill_switch', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 200, NULL, '{"loop_score":10.5,"threshold":10,"window_size":20,"similar_prompts":5,"similar_responses":2,"repeated_tool_calls":1,"action":"deactivated"}', 'proxy', '2026-01-02T03:04:12.250Z', NULL, NULL, NULL, '2026-01-02T03:04:12.250Z');
INSERT OR IGNORE INTO alerts (id, agent_id, rule_type, message, timestamp, body) VALUES ('603319f8-707d-5dc3-8602-4fb38c2c7c9a', ('o''brien\'||char(0,10)||'; DROP TABLE agents; --é'||CAST(X'FF' AS TEXT)), 'kill_switch', ('Kill switch triggered for agent "o''brien\'||char(0,10)||'; DROP TABLE agents; --é'||CAST(X'FF' AS TEXT)||'"'||char(10)||'Loop score: 10.5 (threshold: 10)'||char(10)||'Details: 5 similar prompts, 2 similar responses, 1 repeated tool calls'||char(10)||'Window size: 20'), '2026-01-02T03:04:12.250Z', '{"agent_id":"o''brien\\\u0000\n; DROP TABLE agents; --é�","rule_type":"kill_switch","message":"Kill switch triggered for agent \"o''brien\\\u0000\n; DROP TABLE agents; --é�\"\nLoop score: 10.5 (threshold: 10)\nDetails: 5 similar prompts, 2 similar responses, 1 repeated tool calls\nWindow size: 20","timestamp":"2026-01-02T03:04:12.250Z"}');
UPDATE agents SET active = 1, deactivated_by = NULL, updated_at = '2026-01-02T03:05:12.250Z' WHERE agent_id = ('o''brien\'||char(0,10)||'; DROP TABLE agents; --é'||CAST(X'FF' AS TEXT));
COMMIT;
