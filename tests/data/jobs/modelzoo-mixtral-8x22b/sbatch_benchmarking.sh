#!/bin/bash
# The benchmark wrapper, in the form of Megatron-MoE-ModelZoo's sbatch_benchmarking.sh (see
# .source.txt): it sources the common and model configurations, builds one string of training
# parameters with if-blocks on the environment (VPP, dispatcher, precision, 1F1B overlap), appends
# its own positional arguments, exports the training command and submits a batch script on
# standard input whose srun runs it with `bash -c`.
set -euxo pipefail

export WORKSPACE=$(dirname "$(readlink -f "$0")")
export MODEL=${MODEL:-"your_own_model"}
export MEGATRON_PATH=${MEGATRON_PATH:-"/opt/megatron-lm"}

source "${WORKSPACE}/runtime_configs/common.conf"
source "${WORKSPACE}/model_configs/${MODEL}.conf"

TRAINING_PARAMS="${TRAINING_PARAMS:-} ${MODEL_ARGS}"

if [[ $# -gt 0 ]]; then
    TRAINING_PARAMS="${TRAINING_PARAMS} $@"
fi

if [[ ${VPP} -gt 1 ]]; then
    TRAINING_PARAMS="${TRAINING_PARAMS} --num-virtual-stages-per-pipeline-rank ${VPP}"
fi

DISPATCHER=${DISPATCHER:-"alltoall"}
if [[ ${DISPATCHER} == "alltoall" ]]; then
    TRAINING_PARAMS="${TRAINING_PARAMS} --moe-token-dispatcher-type alltoall"
elif [[ ${DISPATCHER} == "deepep" ]]; then
    TRAINING_PARAMS="${TRAINING_PARAMS} --moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep"
fi

if [[ ${PR} == "fp8" ]]; then
    TRAINING_PARAMS="${TRAINING_PARAMS} --fp8-recipe blockwise --fp8-format e4m3"
fi

A2A_OVERLAP=${A2A_OVERLAP:-0}
if [[ ${A2A_OVERLAP} == 1 ]]; then
    export CUDA_DEVICE_MAX_CONNECTIONS=32
    TRAINING_PARAMS="${TRAINING_PARAMS} --delay-wgrad-compute --overlap-moe-expert-parallel-comm"
else
    export CUDA_DEVICE_MAX_CONNECTIONS=1
fi

export TRAINING_CMD="python ${TRAINING_SCRIPT_PATH} ${TRAINING_PARAMS}"

SLURM_LOGS="${OUTPUT_PATH}/slurm_logs"
mkdir -p ${SLURM_LOGS}

set +e
sbatch <<EOF
#!/bin/bash
#SBATCH --nodes=${NNODES}
#SBATCH --ntasks-per-node=8
#SBATCH --exclusive

srun --mpi=pmix -l --container-workdir=${MEGATRON_PATH} \
    bash -c '\${TRAINING_CMD}' 2>&1 | tee ${SLURM_LOGS}/\${SLURM_JOB_ID:-0}.log
EOF
set -e
