torchrun --nproc-per-node 8 pretrain_gpt.py --lr 1e-5
