package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

//go:embed doc.md.tmpl
var docTemplate string

// report is a run: docs/xlang.json, and what docs/xlang.md is made from.
type report struct {
	Machine    machine     `json:"machine"`
	Command    string      `json:"command"`
	Runs       int         `json:"runs"`
	Settings   settings    `json:"settings"`
	Kernels    []kernel    `json:"kernels"`
	Toolchains []toolchain `json:"toolchains"`
	Results    results     `json:"results"`
}

// kernelAbout says what each kernel is, in the document.
var kernelAbout = map[string]string{
	"fib": "fib(n) with a fork on every call and no cutoff: nothing but the cost of a fork and a join.",
	"uts-bin": "UTS binomial tree: the root has b0 children, every other node 5 children with " +
		"probability 0.2 (expected 1: a critical tree, deep and heavy-tailed). A node is one hash: " +
		"the cost of a task.",
	"uts-geo": "UTS geometric tree (T1's shape: on average 4 children a node, geometrically " +
		"distributed, down to the depth limit): bushy and shallow, 40 hash rounds of work in every node.",
}

// write renders the document to path and the JSON beside it.
func (r report) write(path string) error {
	md, err := r.markdown()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(strings.TrimSuffix(path, ".md")+".json", append(b, '\n'), 0o644)
}

// rerender rewrites the document at path from the JSON beside it, without
// measuring: for edits to the prose of doc.md.tmpl.
func rerender(path string) error {
	b, err := os.ReadFile(strings.TrimSuffix(path, ".md") + ".json")
	if err != nil {
		return err
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	md, err := r.markdown()
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(md), 0o644)
}

func (r report) markdown() (string, error) {
	type section struct {
		kernel
		About, Table string
	}
	var secs []section
	for _, k := range r.Kernels {
		secs = append(secs, section{k, kernelAbout[k.Name], r.Results.table(k)})
	}
	t, err := template.New("doc").Funcs(template.FuncMap{"ratio": r.Results.ratioSpan}).Parse(docTemplate)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	err = t.Execute(&b, map[string]any{
		"R": r, "Sections": secs, "Impls": impls, "Reference": reference,
	})
	if err != nil {
		return "", fmt.Errorf("document: %v", err)
	}
	return b.String(), nil
}
