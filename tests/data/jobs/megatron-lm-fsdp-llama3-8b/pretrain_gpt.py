# Stands for Megatron-LM's pretrain_gpt.py, which the job script checks for before it launches.
