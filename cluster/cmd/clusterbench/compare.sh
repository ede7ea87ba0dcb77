#!/bin/sh
# compare.sh runs clusterbench -compare and regenerates what docs/cluster.md
# publishes from it: docs/cluster-compare.json (every figure), the tables
# between the clusterbench-compare markers of docs/cluster.md, and the
# chart, docs/cluster-compare.png (its input: docs/cluster-compare-chart.json).
# Flags are passed on to clusterbench, for example -modes both or
# -scale-procs 64. Run it from anywhere in the repository.
set -eu
cd "$(dirname "$0")/../.."
go run ./cmd/clusterbench -compare "$@" -json ../docs/cluster-compare.json \
	-chart ../docs/cluster-compare-chart.json -md ../docs/cluster.md
cd cmd/clusterbench/pngchart
go run . ../../../../docs/cluster-compare-chart.json ../../../../docs/cluster-compare.png
