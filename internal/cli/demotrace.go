package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/worksteal/steal"
)

// writeTrace writes the pool's timeline to the -trace file as Chrome trace
// JSON, with the run described in the format's otherData metadata, where
// trace viewers show it and the chart program finds its title.
func writeTrace(out io.Writer, p *steal.Pool, f demoFlags, workers int) error {
	var trace bytes.Buffer
	if err := p.WriteTrace(&trace); err != nil {
		return err
	}
	title := fmt.Sprintf("steal demo: %d tasks created on worker 0, %d workers (-spawn %s)", f.tasks, workers, f.spawn)
	data, err := withOtherData(trace.Bytes(), map[string]string{"title": title})
	if err != nil {
		return err
	}
	if err := os.WriteFile(f.trace, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "timeline written to %s (open it in ui.perfetto.dev or chrome://tracing)\n\n", f.trace)
	return nil
}

// withOtherData adds an "otherData" member, the Trace Event Format's
// metadata, to the JSON object trace.
func withOtherData(trace []byte, meta map[string]string) ([]byte, error) {
	rest, ok := bytes.CutPrefix(trace, []byte("{"))
	if !ok {
		return nil, fmt.Errorf("trace is not a JSON object: %.20q", trace)
	}
	m, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"otherData":`), m...)
	if !bytes.HasPrefix(bytes.TrimSpace(rest), []byte("}")) {
		out = append(out, ',')
	}
	return append(out, rest...), nil
}
