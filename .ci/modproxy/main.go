// Command modproxy lays out a Go module proxy in a directory, serving the
// module in the current directory at one version, for GOPROXY=file://DIR.
// It lets CI build the repository's other modules against the root module
// exactly as a user's go get would resolve them (GOWORK=off, no replace),
// without a network or a published tag.
//
//	go run ./.ci/modproxy -dir /tmp/proxy -version v0.1.0
//
// The zip holds what the go command would put in it: the files git tracks
// in this module, leaving out subdirectories that are modules of their
// own and directories the go command ignores (names starting with . or _,
// testdata kept). See https://go.dev/ref/mod#zip-files.
package main

import (
	"archive/zip"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	dir := flag.String("dir", "", "proxy directory to write (required)")
	version := flag.String("version", "", "version to serve, e.g. v0.1.0 (required)")
	flag.Parse()
	if *dir == "" || *version == "" {
		fmt.Fprintln(os.Stderr, "usage: modproxy -dir DIR -version vX.Y.Z")
		os.Exit(2)
	}
	if err := run(*dir, *version); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func run(dir, version string) error {
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		return err
	}
	modPath := modulePath(gomod)
	if modPath == "" {
		return fmt.Errorf("no module line in go.mod")
	}
	files, err := moduleFiles()
	if err != nil {
		return err
	}
	at := filepath.Join(dir, filepath.FromSlash(modPath), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		data, err := os.ReadFile(filepath.FromSlash(f))
		if err != nil {
			return err
		}
		w, err := zw.Create(modPath + "@" + version + "/" + f)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":%q}`, version, time.Now().UTC().Format(time.RFC3339))
	for name, data := range map[string][]byte{
		version + ".zip":  buf.Bytes(),
		version + ".mod":  gomod,
		version + ".info": []byte(info),
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// moduleFiles lists the files git tracks that belong to the module in the
// current directory.
func moduleFiles() ([]string, error) {
	out, err := exec.Command("git", "ls-files", "-z", ".").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	all := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	nested := map[string]bool{}
	for _, f := range all {
		if path.Base(f) == "go.mod" && path.Dir(f) != "." {
			nested[path.Dir(f)] = true
		}
	}
	var files []string
	for _, f := range all {
		if f == "" || inNested(f, nested) || ignored(f) {
			continue
		}
		files = append(files, f)
	}
	return files, nil
}

func inNested(f string, nested map[string]bool) bool {
	for d := path.Dir(f); d != "."; d = path.Dir(d) {
		if nested[d] {
			return true
		}
	}
	return false
}

// ignored reports whether f lies in a directory the go command leaves out
// of a module's packages (a name starting with . or _).
func ignored(f string) bool {
	parts := strings.Split(f, "/")
	for _, p := range parts[:len(parts)-1] {
		if strings.HasPrefix(p, ".") || strings.HasPrefix(p, "_") {
			return true
		}
	}
	return false
}
