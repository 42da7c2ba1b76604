"""Swarm verification (Holzmann, Joshi and Groce): many small, diversified bitstate searches of
one model, run in parallel on a dask.distributed cluster, their reports merged into one.

    plan.py      which jobs: compile variants and pan arguments, from a seed
    build.py     verify's stages up to gcc, then one pan per compile variant
    worker.py    what a dask worker runs for one job (the standard library only)
    cluster.py   the cluster: a LocalCluster or the user's scheduler; submission, the time
                 budget, stopping
    coverage.py  what the jobs' counts say about the states the swarm covered
    result.py    the merged report: summary, JSON, exit status
    run.py       the whole swarm as one function, ``swarm(model, options)``
"""
