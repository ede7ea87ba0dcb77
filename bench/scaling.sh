#!/usr/bin/env bash
# Scaling sweep: the pool's Go benchmarks at GOMAXPROCS 1, 2, 4, 8 and 16,
# the bench harness (steal beside its peers) at W = 4 and 16, and the same
# fork-join kernels in Rust (Rayon) and Java (ForkJoinPool) at W threads.
#
#   bash bench/scaling.sh [bin-dir] [out-dir]
#
# bin-dir holds steal.test and bench, built from the repository root with
#
#   go test -c -o bin/steal.test . && (cd bench && go build -o ../bin/bench .)
#
# so that the sweep runs on a machine without Go; for the xlang part, also
# Rust's bench/xlang/build/rust/release/xlang as bin/xlang and Java's
# bench/xlang/build/java as bin/java (see bench/xlang/README.md; a part
# whose program or runtime is missing is skipped). out-dir receives one
# text file per part; docs/scaling.md quotes them. Each part has its own
# time limit, so a hang costs that part only. PARTS, CPUS, HARNESS_W,
# HARNESS_IMPL and HARNESS_WL choose what runs.
set -u
bin=${1:-.devbin}
out=${2:-/tmp/scaling}
cpus=${CPUS:-1,2,4,8,16}
parts=${PARTS:-submit forkjoin harness xlang}
mkdir -p "$out"
{
	nproc
	grep -m1 'model name' /proc/cpuinfo
	uname -sr
} >"$out/machine.txt" 2>&1

gobench() { # name pattern
	timeout 240 "$bin/steal.test" -test.run XXX -test.bench "$2" \
		-test.cpu "$cpus" -test.benchtime 3x -test.count 1 >"$out/$1.txt" 2>&1
}
for part in $parts; do
	case $part in
	submit) gobench submit 'BenchmarkSubmitProducers|BenchmarkSubmitEmpty' ;;
	forkjoin) gobench forkjoin 'BenchmarkJoin$|BenchmarkUTS$' ;;
	harness)
		for w in ${HARNESS_W:-4 16}; do
			GOMAXPROCS=$w timeout 150 "$bin/bench" -runs 3 -json \
				-impl "${HARNESS_IMPL:-steal,steal-join,steal-group,goroutines,errgroup,pond,ants,conc,channel,sequential}" \
				${HARNESS_WL:-spawn8 fib uts-geo sort} >"$out/harness-w$w.jsonl" 2>&1
		done
		;;
	xlang) # args: KERNEL IMPL PARAM WARMUP REPS THREADS; one JSON line each
		for w in ${HARNESS_W:-4 16}; do
			for k in "fib 35" "uts-bin 2000" "uts-geo 10"; do
				set -- $k
				impls="rust-seq rayon-join"
				[ "$1" = fib ] || impls="$impls rayon-par_iter rayon-scope"
				[ -x "$bin/xlang" ] && for i in $impls; do
					timeout 60 "$bin/xlang" "$1" "$i" "$2" 1 3 "$w"
				done
				command -v java >/dev/null && [ -d "$bin/java" ] && for i in java-forkjoin java-invokeall; do
					timeout 60 java -Xss256m -cp "$bin/java" Xlang "$1" "$i" "$2" 1 3 "$w"
				done
			done >"$out/xlang-w$w.jsonl" 2>&1
		done
		;;
	esac
done
