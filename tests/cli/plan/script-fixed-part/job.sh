#!/bin/bash
# A wrapper with environment prefixes: TP and EP are fixed by the job, the rest is searched.
TP=1 EP=8 NNODES=2 GBS=128 bash "$(dirname "$0")/inner.sh"
