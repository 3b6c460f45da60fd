CKPT2=/ckpt/run2
python3 train.py --load "$CKPT_DIR" --lr 0.00001 --hidden-dropout 0.1 --tensor-model-parallel-size 1
