A=(--lr 1 ; --x 2)
python3 train.py "${A[@]}"
