#!/usr/bin/env python3
# The openAPIV3Schema of a CRD's storage version, descriptions left out, as KubernetesRecipesIT reads it.
# Usage: crd-schema.py REPO REF PATH OUT (REPO: a clone of the operator's repository).
import yaml, json, subprocess, sys

def strip(n):
    if isinstance(n, dict):
        return {k: strip(v) for k, v in n.items() if k != 'description'}
    if isinstance(n, list):
        return [strip(x) for x in n]
    return n
repo, ref, path, out = sys.argv[1:5]
crd = yaml.safe_load(subprocess.check_output(['git','-C',repo,'show',ref+':'+path]))
v = [v for v in crd['spec']['versions'] if v.get('storage')][0]
assert v['name']=='v1', v['name']
json.dump(strip(v['schema']['openAPIV3Schema']), open(out,'w'), indent=1, sort_keys=False)
print(out, crd['spec']['names']['kind'])
