python3 train.py \
  --lr 1e-5 \
  --data-path "/data/a
