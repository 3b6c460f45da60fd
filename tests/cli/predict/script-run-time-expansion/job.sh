# issue 29: a user's job whose argument runs a command when it starts; its job cannot carry it
torchrun --nproc-per-node 8 pretrain_gpt.py \
  --tensor-model-parallel-size 1 --expert-model-parallel-size 8 \
  --wandb-project 'literal$(kept)' --wandb-exp-name "run-`date +%s`"
