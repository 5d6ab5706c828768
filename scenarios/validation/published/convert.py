#!/usr/bin/env python3
"""Converts ../shared/validation/published_runs_2026-11-23.csv into compare's format (one column
per scenario key), the group of each row chosen by its source, GPU and interconnect. Run from the
project root: python3 scenarios/validation/published/convert.py ../shared/validation/published_runs_2026-11-23.csv"""
import csv, sys

def group(r):
    s, g, i, f = r['source'], r['gpu'], r['interconnect'], r['framework']
    if s.startswith('NVIDIA/DeepLearningExamples:PyTorch'):
        return {'A100-80GB SXM4': 'dle_pt_a100', 'V100-16GB SXM2': 'dle_pt_v100', 'V100-32GB SXM2': 'dle_pt_v100_32'}[g]
    if s.startswith('"NVIDIA/DeepLearningExamples:TensorFlow') or s.startswith('NVIDIA/DeepLearningExamples:TensorFlow'):
        return {'A100-40GB SXM4': 'dle_tf_a100', 'V100-16GB SXM2': 'dle_tf_v100', 'V100-32GB SXM3': 'dle_tf_dgx2'}[g]
    if s.startswith('lambdal'):
        if g.startswith('A100'): return 'lambda_a100'
        if g.startswith('V100'): return 'lambda_v100'
        if g == 'RTX 3090': return 'lambda_rtx3090'
        if g == 'RTX 4090': return 'lambda_rtx4090'
    if s.startswith('msalvaris'):
        return 'azure_p100_ib' if 'IntelMPI' in f else 'azure_p100_eth'
    raise SystemExit('no group for: ' + str(r))

# Activation layout each run used: NVIDIA's PyTorch ConvNets main.py defaults to
# --memory-format nchw and its configs.yml asks for nhwc only with AMP; Lambda's harness
# (lambdal/deeplearning-benchmark pytorch/scripts/config_v1/config_pytorch_*.sh) runs the same main.py
# without the flag. DLE's TensorFlow runs are NHWC (ddlsim's default).
def memory_format(r):
    s = r['source']
    if s.startswith('NVIDIA/DeepLearningExamples:PyTorch'):
        return 'nhwc' if r['precision'] == 'AMP' else 'nchw'
    if s.startswith('lambdal'):
        return 'nchw'
    return 'nhwc'

PRECISION = {'TF32': 'tf32', 'AMP': 'mixed', 'FP32': 'fp32', 'FP32/TF32': 'tf32', 'TF32 (fp32 column)': 'tf32'}
DEVICE = {'A100-80GB SXM4': 'a100-80gb', 'A100-40GB SXM4': 'a100', 'V100-16GB SXM2': 'v100',
          'V100-32GB SXM2': 'v100-32gb', 'V100-32GB SXM3': 'v100-32gb', 'V100-16GB (LambdaCloud)': 'v100',
          'RTX 3090': 'rtx3090', 'RTX 4090': 'rtx4090', 'P100 (Azure NC24rs_v2)': 'p100'}

rows = list(csv.DictReader(open(sys.argv[1])))
out = csv.writer(sys.stdout, lineterminator='\n')
out.writerow(['group', 'model.name', 'compute.device', 'model.precision', 'cluster.nodes', 'cluster.gpus_per_node',
              'training.batch_per_gpu', 'input.format', 'compute.memory_format', 'samples_per_s', 'source'])
for r in rows:
    assert r['metric'] == 'img/s', r
    n, nodes = int(r['n_gpus']), int(r['n_nodes'])
    data = 'synthetic' if r['data'] == 'synthetic' else 'records'
    out.writerow([group(r), 'resnet50', DEVICE[r['gpu']], PRECISION[r['precision']], nodes, n // nodes,
                  r['batch_per_gpu'], data, memory_format(r), r['value'], r['source'] + ' [' + r['status'] + ']'])
