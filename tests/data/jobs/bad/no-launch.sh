#!/bin/bash
# Prepares data and launches nothing.
python3 -c 'print("preparing")'
echo done
