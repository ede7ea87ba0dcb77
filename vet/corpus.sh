#!/usr/bin/env bash
# corpus.sh: run every stealvet analyzer over a corpus of real Go code,
# to count its findings (docs/vet.md triages them by hand).
#
#   bash vet/corpus.sh            # all corpora
#   bash vet/corpus.sh std steal  # some of them
#
# Corpora: std (the standard library), xtools (golang.org/x/tools),
# nats (github.com/nats-io/nats-server/v2), prom
# (github.com/prometheus/client_golang), steal (this repository's root
# module), cmd (the Go distribution's commands, GOROOT/src/cmd, an
# extra corpus). Test files are loaded too (-test, the default), and every
# analyzer flag NAME.tests is set, so that the analyzers that skip
# _test.go files by default report there as well: the findings outside
# _test.go files are what a default run reports.
#
# Needs Go, jq, and the Go module proxy. The module cache is read-only,
# so each third-party module is copied to a work directory first.
# Results go to $OUT (default vet/corpus-out, not committed):
# NAME.tsv has one finding a line (analyzer, position, message),
# NAME.loc the lines of Go the run covered, summary.tsv the counts.
# It takes tens of minutes on two cores; run it with nice.
set -uo pipefail
cd "$(dirname "$0")"
vet=$(pwd)
root=$(cd .. && pwd)
OUT=${OUT:-$vet/corpus-out}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$OUT"
export GOTOOLCHAIN=local GOWORK=off

go build -o "$WORK/stealvet" ./cmd/stealvet || exit 1
stealvet=$WORK/stealvet
testflags=$("$stealvet" -flags | jq -r '.[] | select(.Name | endswith(".tests")) | "-" + .Name')

# fetch MODULE@VERSION: a writable copy of the module, with its
# dependencies downloaded; prints its directory.
fetch() {
	local src dst
	src=$(cd "$WORK" && go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
	[ -n "$src" ] || { echo "cannot download $1" >&2; return 1; }
	dst=$WORK/$(echo "$1" | tr '/@' '__')
	if [ ! -d "$dst" ]; then
		cp -r "$src" "$dst" && chmod -R u+w "$dst"
		(cd "$dst" && GOFLAGS=-mod=mod go mod download) >&2
	fi
	echo "$dst"
}

# loc DIR PATTERN: lines in the non-test and in all .go files of the
# packages PATTERN matches (what go list reports, so the lines that
# were analyzed: no testdata, no other modules).
loc() {
	(cd "$1" && GOFLAGS=-mod=mod go list -e -f \
		'{{range .GoFiles}}{{$.Dir}}/{{.}} n{{"\n"}}{{end}}{{range .CgoFiles}}{{$.Dir}}/{{.}} n{{"\n"}}{{end}}{{range .TestGoFiles}}{{$.Dir}}/{{.}} t{{"\n"}}{{end}}{{range .XTestGoFiles}}{{$.Dir}}/{{.}} t{{"\n"}}{{end}}' "$2") |
		while read -r f k; do [ -n "$f" ] && echo "$(wc -l <"$f") $k"; done |
		awk '{all += $1; if ($2 == "n") non += $1} END {printf "%d\t%d\n", non, all}'
}

# run NAME DIR PATTERN
run() {
	local name=$1 dir=$2 pat=$3 start
	start=$(date +%s)
	echo "== $name: $pat in $dir" >&2
	(cd "$dir" && GOFLAGS=-mod=mod nice "$stealvet" -json $testflags "$pat" >"$OUT/$name.json" 2>"$OUT/$name.err")
	jq -r 'to_entries[] | .value | to_entries[] | .key as $a |
		if (.value | type) == "array" then .value[] | [$a, .posn, .message] | @tsv
		else [$a, "error", (.value.error // "")] | @tsv end' "$OUT/$name.json" |
		sed -e "s#$dir/##" -e "s#$(go env GOROOT)/src/##" | sort -u >"$OUT/$name.tsv"
	loc "$dir" "$pat" >"$OUT/$name.loc"
	echo "$name: $(wc -l <"$OUT/$name.tsv") findings, $(cut -f2 "$OUT/$name.loc") lines, $(($(date +%s) - start))s" >&2
}

corpora=${*:-std xtools nats prom steal cmd}
for c in $corpora; do
	case $c in
	std) run std "$WORK" std ;;
	xtools) run xtools "$(fetch golang.org/x/tools@v0.52.0)" ./... ;;
	nats) run nats "$(fetch github.com/nats-io/nats-server/v2@v2.15.2)" ./... ;;
	prom) run prom "$(fetch github.com/prometheus/client_golang@v1.25.0)" ./... ;;
	steal) run steal "$root" ./... ;;
	cmd) run cmd "$(go env GOROOT)/src/cmd" ./... ;;
	*) echo "unknown corpus $c" >&2; exit 2 ;;
	esac
done

# summary.tsv: corpus, analyzer, findings outside _test.go files,
# findings in _test.go files, non-test lines, all lines.
{
	printf 'corpus\tanalyzer\tnon-test\ttest\tnon-test lines\tall lines\n'
	for c in $corpora; do
		names=$(cut -f1 "$OUT/$c.tsv" | sort -u)
		for a in $names; do
			t=$(grep "^$a	" "$OUT/$c.tsv" | cut -f2 | grep -c '_test\.go:')
			n=$(grep -c "^$a	" "$OUT/$c.tsv")
			printf '%s\t%s\t%d\t%d\t%s\n' "$c" "$a" $((n - t)) "$t" "$(cat "$OUT/$c.loc")"
		done
		[ -n "$names" ] || printf '%s\t-\t0\t0\t%s\n' "$c" "$(cat "$OUT/$c.loc")"
	done
} >"$OUT/summary.tsv"
cat "$OUT/summary.tsv"
