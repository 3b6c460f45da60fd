python3 train.py --lr 1e-5
