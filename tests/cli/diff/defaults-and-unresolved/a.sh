python3 train.py --attention-dropout 0.1 --seed 1234 --load "$CKPT" --lr 1e-5
