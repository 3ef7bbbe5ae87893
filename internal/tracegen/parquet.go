package tracegen

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// OpenInferenceParquet writes spans as Arize Phoenix saves a TraceDataset:
// the spans DataFrame through pandas and pyarrow, a row per span, with the
// column types those write — start_time and end_time as
// TIMESTAMP(NANOS, UTC), attributes.llm.input_messages and
// output_messages as LISTs of structs whose fields are named
// "message.role", "message.content", "message.tool_calls" (itself a LIST
// of structs "tool_call.id", "tool_call.function.name", …), token counts
// as doubles (pandas float64), events as a LIST of the NULL type and
// conversation as an all-NULL column, and the "pandas" key-value metadata.
func OpenInferenceParquet(w io.Writer, spans []Span) error {
	toolCall := parquet.Group{
		"tool_call.id":                 optString(),
		"tool_call.function.name":      optString(),
		"tool_call.function.arguments": optString(),
	}
	message := parquet.Group{
		"message.role":         optString(),
		"message.content":      optString(),
		"message.tool_call_id": optString(),
		"message.tool_calls":   parquet.Optional(parquet.List(parquet.Optional(toolCall))),
	}
	messages := parquet.Optional(parquet.List(parquet.Optional(message)))
	root := parquet.Group{
		"name":                                  optString(),
		"span_kind":                             optString(),
		"parent_id":                             optString(),
		"start_time":                            parquet.Optional(parquet.Timestamp(parquet.Nanosecond)),
		"end_time":                              parquet.Optional(parquet.Timestamp(parquet.Nanosecond)),
		"status_code":                           optString(),
		"status_message":                        optString(),
		"events":                                parquet.Optional(parquet.List(parquet.Optional(nullLeaf()))),
		"conversation":                          parquet.Optional(nullLeaf()),
		"context.span_id":                       optString(),
		"context.trace_id":                      optString(),
		"attributes.openinference.span.kind":    optString(),
		"attributes.input.value":                optString(),
		"attributes.output.value":               optString(),
		"attributes.llm.model_name":             optString(),
		"attributes.llm.provider":               optString(),
		"attributes.llm.invocation_parameters":  optString(),
		"attributes.llm.input_messages":         messages,
		"attributes.llm.tools":                  parquet.Optional(parquet.List(parquet.Optional(parquet.Group{"tool.json_schema": optString()}))),
		"attributes.llm.output_messages":        messages,
		"attributes.llm.token_count.prompt":     parquet.Optional(parquet.Leaf(parquet.DoubleType)),
		"attributes.llm.token_count.completion": parquet.Optional(parquet.Leaf(parquet.DoubleType)),
		"attributes.llm.token_count.total":      parquet.Optional(parquet.Leaf(parquet.DoubleType)),
		"attributes.session.id":                 optString(),
		"attributes.user.id":                    optString(),
	}
	schema := parquet.NewSchema("schema", root)
	pw := parquet.NewWriter(w, schema,
		parquet.Compression(&parquet.Snappy),
		parquet.CreatedBy("parquet-cpp-arrow", "17.0.0", ""),
		parquet.KeyValueMetadata("pandas", pandasMetadata(schema)))
	rows := make([]parquet.Row, 0, len(spans))
	for _, s := range spans {
		st := striper{cols: make([][]parquet.Value, len(schema.Columns()))}
		st.content(schema, s.row(), 0, 0, 0, 0)
		var row parquet.Row
		for _, c := range st.cols {
			row = append(row, c...)
		}
		rows = append(rows, row)
	}
	if _, err := pw.WriteRows(rows); err != nil {
		return err
	}
	return pw.Close()
}

func optString() parquet.Node { return parquet.Optional(parquet.String()) }

// nullType is pyarrow's NULL column: INT32 annotated with the NULL logical
// type (every value null).
type nullType struct{ parquet.Type }

func (nullType) LogicalType() *format.LogicalType {
	return &format.LogicalType{Value: &format.NullType{}}
}
func (nullType) String() string { return "NULL" }

func nullLeaf() parquet.Node { return parquet.Leaf(nullType{parquet.Int32Type}) }

// row is the span as the value tree striper writes: nil is null.
func (s Span) row() map[string]any {
	opt := func(v string) any {
		if v == "" {
			return nil
		}
		return v
	}
	num := func(n int64) any {
		if n == 0 {
			return nil
		}
		return float64(n)
	}
	status := "OK"
	if s.Error {
		status = "ERROR"
	}
	r := map[string]any{
		"name": s.Name, "span_kind": s.Kind, "parent_id": opt(s.ParentID),
		"start_time": s.Start, "end_time": s.End, "status_code": status, "status_message": "",
		"events": []any{}, "conversation": nil,
		"context.span_id": s.SpanID, "context.trace_id": s.TraceID,
		"attributes.openinference.span.kind": s.Kind,
		"attributes.input.value":             opt(s.InputValue), "attributes.output.value": opt(s.OutputValue),
		"attributes.llm.model_name": opt(s.Model), "attributes.llm.provider": opt(s.Provider),
		"attributes.llm.invocation_parameters": opt(s.paramsJSON()),
		"attributes.llm.input_messages":        messageRows(s.Input),
		"attributes.llm.output_messages":       messageRows(s.Output),
		"attributes.llm.tools":                 toolRows(s.Tools),
		"attributes.llm.token_count.prompt":    num(s.TokensIn), "attributes.llm.token_count.completion": num(s.TokensOut),
		"attributes.llm.token_count.total": num(s.TokensIn + s.TokensOut),
		"attributes.session.id":            opt(s.Session), "attributes.user.id": opt(s.User),
	}
	if s.Kind == "LLM" {
		r["events"] = []any{nil} // pandas keeps an LLM span's events as [None]
	}
	return r
}

func toolRows(tools []string) any {
	if tools == nil {
		return nil
	}
	out := make([]any, len(tools))
	for i, t := range tools {
		out[i] = map[string]any{"tool.json_schema": t}
	}
	return out
}

func messageRows(msgs []Message) any {
	if msgs == nil {
		return nil
	}
	out := make([]any, len(msgs))
	for i, m := range msgs {
		row := map[string]any{"message.role": m.Role}
		if m.Content != "" {
			row["message.content"] = m.Content
		}
		if m.ToolCallID != "" {
			row["message.tool_call_id"] = m.ToolCallID
		}
		if len(m.ToolCalls) > 0 {
			calls := make([]any, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				calls[j] = map[string]any{"tool_call.id": c.ID, "tool_call.function.name": c.Name, "tool_call.function.arguments": c.Arguments}
			}
			row["message.tool_calls"] = calls
		}
		out[i] = row
	}
	return out
}

// striper writes value trees as Parquet leaf values with their repetition
// and definition levels (Dremel striping), one slice per leaf column.
type striper struct{ cols [][]parquet.Value }

// walk writes v as the value of field n, whose leaves start at column col,
// where r is the repetition level of this occurrence, d the definition
// level its ancestors reached and depth the number of repeated ancestors.
// It returns the column after n's leaves.
func (s *striper) walk(n parquet.Node, v any, r, d, depth, col int) int {
	switch {
	case n.Optional():
		if v == nil {
			return s.nulls(n, r, d, col)
		}
		return s.content(n, v, r, d+1, depth, col)
	case n.Repeated():
		list, _ := v.([]any)
		if len(list) == 0 {
			return s.nulls(n, r, d, col)
		}
		end := col
		for i, e := range list {
			rr := r
			if i > 0 {
				rr = depth + 1
			}
			end = s.content(n, e, rr, d+1, depth+1, col)
		}
		return end
	}
	return s.content(n, v, r, d, depth, col)
}

func (s *striper) content(n parquet.Node, v any, r, d, depth, col int) int {
	if n.Leaf() {
		s.cols[col] = append(s.cols[col], leafValue(v).Level(r, d, col))
		return col + 1
	}
	if lt := n.Type().LogicalType(); lt != nil && isList(lt) {
		list, _ := v.([]any)
		elems := make([]any, len(list))
		for i, e := range list {
			elems[i] = map[string]any{"element": e}
		}
		v = map[string]any{"list": elems}
	}
	m, _ := v.(map[string]any)
	for _, f := range n.Fields() {
		col = s.walk(f, m[f.Name()], r, d, depth, col)
	}
	return col
}

// nulls writes an absent n: a null in each of its leaves.
func (s *striper) nulls(n parquet.Node, r, d, col int) int {
	if n.Leaf() {
		s.cols[col] = append(s.cols[col], parquet.NullValue().Level(r, d, col))
		return col + 1
	}
	for _, f := range n.Fields() {
		col = s.nulls(f, r, d, col)
	}
	return col
}

func isList(lt *format.LogicalType) bool {
	_, ok := lt.Value.(*format.ListType)
	return ok
}

func leafValue(v any) parquet.Value {
	switch x := v.(type) {
	case string:
		return parquet.ByteArrayValue([]byte(x))
	case float64:
		return parquet.DoubleValue(x)
	case int64:
		return parquet.Int64Value(x)
	case time.Time:
		return parquet.Int64Value(x.UnixNano())
	}
	panic(fmt.Sprintf("tracegen: no Parquet value for %T", v))
}

// pandasMetadata is the "pandas" metadata pyarrow writes for a DataFrame
// with a RangeIndex: one entry per column.
func pandasMetadata(schema *parquet.Schema) string {
	type column struct {
		Name       string `json:"name"`
		FieldName  string `json:"field_name"`
		PandasType string `json:"pandas_type"`
		NumpyType  string `json:"numpy_type"`
		Metadata   any    `json:"metadata"`
	}
	var cols []column
	for _, f := range schema.Fields() {
		c := column{Name: f.Name(), FieldName: f.Name(), PandasType: "unicode", NumpyType: "object"}
		switch {
		case f.Name() == "start_time" || f.Name() == "end_time":
			c.PandasType, c.NumpyType, c.Metadata = "datetimetz", "datetime64[ns]", map[string]string{"timezone": "UTC"}
		case f.Name() == "events" || f.Name() == "attributes.llm.input_messages" || f.Name() == "attributes.llm.output_messages":
			c.PandasType = "list[empty]"
			if f.Name() != "events" {
				c.PandasType = "list[struct]"
			}
		case f.Name() == "conversation":
			c.PandasType = "empty"
		case f.Leaf() && f.Type().Kind() == parquet.Double:
			c.PandasType, c.NumpyType = "float64", "float64"
		}
		cols = append(cols, c)
	}
	meta := map[string]any{
		"index_columns":  []any{map[string]any{"kind": "range", "name": nil, "start": 0, "stop": 0, "step": 1}},
		"column_indexes": []any{map[string]any{"name": nil, "field_name": nil, "pandas_type": "unicode", "numpy_type": "object", "metadata": map[string]string{"encoding": "UTF-8"}}},
		"columns":        cols,
		"creator":        map[string]string{"library": "pyarrow", "version": "17.0.0"},
		"pandas_version": "2.2.2",
	}
	b, _ := json.Marshal(meta)
	return string(b)
}
