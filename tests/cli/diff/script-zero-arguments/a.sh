#!/bin/bash
# Launches train.py with no argument at all.
python3 train.py
