// Package cli is the steal program's command line: the demo, node and sim
// commands, their flags and usage, and the dispatch between commands.
//
// Two programs share it. cmd/steal, in the root module, runs the base
// commands and needs nothing outside the standard library, so that
// go run ./cmd/steal demo builds quickly from an empty module cache.
// cluster/cmd/stealcluster, in the cluster module, adds the commands that
// need NATS (cluster, worker, node --nats) by passing them to Run, and sets
// Program to its own name.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Command is one subcommand of the program.
type Command struct {
	Name    string // the word after the program's name
	Summary string // one line for the usage text
	// Run runs the command with the arguments after its name and returns
	// the exit status: 0 on success, 1 on failure, 2 on bad usage.
	Run func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// FullProgram names the program that has the NATS commands, for the
// errors the base program prints when asked for one.
const FullProgram = "the full program in the cluster module: cd cluster && go run ./cmd/stealcluster ..., " +
	"or install it with go install github.com/worksteal/steal/cluster/cmd/stealcluster@latest"

// Program is the program's name in usage and error messages: "steal" for
// cmd/steal, which the full program replaces with its own.
var Program = "steal"

// Base returns the root program's commands: demo, node and sim, and
// cluster and worker, which only say where the full program is.
func Base() []Command {
	return []Command{
		{"demo", "run 1000 tasks spawned on one worker and watch the others steal (" + Program + " demo -h)", noStdin(runDemo)},
		{"node", "run a cluster node: one JSON message per line on stdin, replies on stdout", runNode},
		{"sim", "simulate scheduling policies and print a comparison table (" + Program + " sim -h)", noStdin(runSim)},
		{"cluster", "(full program only) run a NATS cluster of workers: cluster up, cluster demo", elsewhere("cluster")},
		{"worker", "(full program only) join a NATS cluster as a worker process", elsewhere("worker")},
	}
}

// Run runs the command args[0] and returns the exit status. The commands
// are Base's, with each of extra replacing the base command of its name or
// added after them. No command, or an unknown one, prints the usage to
// stderr and returns 2; help prints it to stdout and returns 0.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, extra ...Command) int {
	cmds := merge(Base(), extra)
	if len(args) == 0 {
		fmt.Fprint(stderr, usage(cmds))
		return 2
	}
	switch {
	case args[0] == "help" && len(args) > 2:
		fmt.Fprintf(stderr, "%s: help takes one command, not %q\n", Program, args[1:])
		return 2
	case args[0] == "help" && len(args) == 2 && !IsHelp(args[1]):
		args = []string{args[1], "-h"} // help COMMAND is COMMAND -h
	case IsHelp(args[0]): // help about help (help -h, help help) is help too
		fmt.Fprint(stdout, usage(cmds))
		return 0
	}
	i := slices.IndexFunc(cmds, func(c Command) bool { return c.Name == args[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n%s", Program, args[0], usage(cmds))
		return 2
	}
	return cmds[i].Run(args[1:], stdin, stdout, stderr)
}

// run is Run with the base commands only, as cmd/steal runs it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Run(args, stdin, stdout, stderr)
}

// IsHelp reports whether arg asks for help where a command or subcommand
// is expected: help, -h, -help or --help.
func IsHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "-help" || arg == "--help"
}

func merge(base, extra []Command) []Command {
	out := slices.Clone(base)
	for _, c := range extra {
		if i := slices.IndexFunc(out, func(b Command) bool { return b.Name == c.Name }); i >= 0 {
			out[i] = c
		} else {
			out = append(out, c)
		}
	}
	return out
}

func usage(cmds []Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s <command> [flags]\n\ncommands:\n", Program)
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-8s%s\n", c.Name, c.Summary)
	}
	return b.String()
}

func noStdin(f func(args []string, stdout, stderr io.Writer) int) func([]string, io.Reader, io.Writer, io.Writer) int {
	return func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return f(args, stdout, stderr) }
}

// elsewhere is the base program's stand-in for a command of the full
// program: it names the full program and returns 2.
func elsewhere(name string) func([]string, io.Reader, io.Writer, io.Writer) int {
	return func(_ []string, _ io.Reader, _, stderr io.Writer) int {
		notHere(stderr, Program+" "+name)
		return 2
	}
}

func notHere(stderr io.Writer, what string) {
	fmt.Fprintf(stderr, "%s: this build leaves out NATS, which the command needs; run %s\n", what, FullProgram)
}

// Parse parses a command's flags, this program's and stealcluster's, which
// take every argument: none of the commands has operands, and a stray word
// is most often a flag's value given twice ("-workers 4 8"), which must
// not run as if it were absent.
// It returns the exit status to return at once, or -1 to go on: 0 after
// -h, which printed the usage as asked, and 2 after a usage error.
//
// A flag the flag package refuses (unknown, without its value, a value
// that does not parse) is reported on one line that starts with the
// command, as the commands' own errors do, and points to -h, instead of
// the error followed by the whole usage, which scrolled the error out of
// sight; a duration's error says what is wrong with it (a missing unit),
// where the flag package says only "parse error".
func Parse(fs *flag.FlagSet, args []string, stderr io.Writer) int {
	out, usage := fs.Output(), fs.Usage
	defer func() { fs.SetOutput(out); fs.Usage = usage }()
	w := &flagErrors{fs: fs, out: out}
	fs.SetOutput(w)
	fs.Usage = func() {
		if w.failed {
			return // the error line said where the usage is
		}
		w.help = true // what the usage writes goes out as it is
		if usage != nil {
			usage()
			return
		}
		fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2
	}
	return -1
}

// flagErrors stands in for a FlagSet's output while Parse runs: outside
// the usage, the only thing the flag package writes is the line of the
// error it is about to return, which flagErrors rewrites (see Parse).
type flagErrors struct {
	fs     *flag.FlagSet
	out    io.Writer
	help   bool // printing the usage, as asked
	failed bool // the error line has been written
}

// badValue is the flag package's error for a value its own Set refused
// as unparsable: it says only "parse error", whatever the reason.
var badValue = regexp.MustCompile(`^invalid value ("(?:[^"\\]|\\.)*") for flag -(\S+): parse error$`)

func (w *flagErrors) Write(p []byte) (int, error) {
	if w.help {
		return w.out.Write(p)
	}
	w.failed = true
	msg := strings.TrimSuffix(string(p), "\n")
	if m := badValue.FindStringSubmatch(msg); m != nil {
		value, _ := strconv.Unquote(m[1])
		if f := w.fs.Lookup(m[2]); f != nil && isDuration(f) {
			if _, err := time.ParseDuration(value); err != nil {
				msg = strings.TrimSuffix(msg, "parse error") + strings.TrimPrefix(err.Error(), "time: ")
			}
		}
	}
	if _, err := fmt.Fprintf(w.out, "%s: %s (%s -h lists the flags)\n", w.fs.Name(), msg, w.fs.Name()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// isDuration reports whether f holds a time.Duration, as flag.Duration's
// flags do.
func isDuration(f *flag.Flag) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, ok = g.Get().(time.Duration)
	return ok
}
