#!/bin/bash
TP=2 EP=8 NNODES=8 GBS=256 bash "$(dirname "$0")/inner.sh" --recompute-granularity selective
