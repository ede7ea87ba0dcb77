package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/worksteal/steal"
)

// traceFile is the -trace file, opened before the runs.
type traceFile struct {
	*os.File
	created bool // by openTrace: abandon removes it
	written bool
}

// openTrace opens path for writing without truncating it: an existing
// file is replaced only once there is a timeline to put in it.
func openTrace(path string) (*traceFile, error) {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &traceFile{File: f, created: statErr != nil}, nil
}

// abandon closes the file and, if the demo created it but wrote no
// timeline, removes it; after a write it does nothing.
func (t *traceFile) abandon() {
	if t.written {
		return
	}
	t.Close()
	if t.created {
		os.Remove(t.Name())
	}
}

// writeTrace writes the pool's timeline to the -trace file as Chrome trace
// JSON, with the run described in the format's otherData metadata, where
// trace viewers show it and the chart program finds its title.
func writeTrace(out io.Writer, file *traceFile, p *steal.Pool, f demoFlags, workers int) error {
	var trace bytes.Buffer
	if err := p.WriteTrace(&trace); err != nil {
		return err
	}
	title := fmt.Sprintf(Program+" demo: %d tasks created on worker 0, %d workers (-spawn %s)", f.tasks, workers, f.spawn)
	data, err := withOtherData(trace.Bytes(), map[string]string{"title": title})
	if err != nil {
		return err
	}
	if err := file.Truncate(0); err != nil {
		return err
	}
	if _, err := file.WriteAt(data, 0); err != nil {
		return err
	}
	file.written = true
	if err := file.Close(); err != nil {
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
