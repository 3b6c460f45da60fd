#!/bin/bash
TP=2 EP=4 NNODES=4 GBS=128 bash "$(dirname "$0")/inner.sh" --recompute-granularity selective
