#!/usr/bin/env bash
# Inventory probe time on big machine trees (target: 192 CPUs well under 100 ms).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench -q -p truebench-host --bench probe
