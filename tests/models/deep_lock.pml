/* A combination lock with a deep, rare bug, for swarm verification (tests/commands/test_swarm.py).

   Three identical workers open a lock by taking turns: a step by a worker other than the
   last one to step advances `level`, and the assertion fails when it reaches DEEP (30), so
   the shortest error trail is 30 steps long.  At any moment a worker may jam the lock, after
   which only the wheels turn: the lock ignores them, but they multiply the states (6^3
   wheel positions at every level).  pan's depth-first search tries each worker's options
   in the order written, the jam first: a bitstate search whose bit array is small fills it
   with jammed states before it gets far with the turns, and misses the error.  A swarm
   member compiled with -DT_REVERSE (steps first) or with random orders finds it.

   What it must give (tests/commands/test_swarm.py checks the bitstate runs and the swarm):
   * plain SPIN, exhaustively: the assertion violation (the header's run below);
   * `verify -DBITSTATE --pan -w13` (symmetry on, pan's default order, -k3 -h0): no error;
   * `swarm --jobs 4 --pan -w13 --seed 1`: the error, and a trail that `spin -t` replays to
     "assertion violated".

   The workers are symmetric (S3 on pids 1..3: `last` holds a pid, `wheel` is indexed by
   pid); init (pid 0, `last`'s initial value) is fixed.

   pids: :init: worker worker worker
   expect: flags=-DNOREDUCE states=33015 errors=1
*/
#ifndef DEEP
#define DEEP 30
#endif
#define WHEEL 6

byte level = 0;          /* how far the lock is open */
byte last = 0;           /* the worker that stepped last (0: nobody yet) */
byte wheel[4];           /* each worker's wheel: noise the lock ignores */
bool jammed = false;

proctype worker()
{
  do
  :: !jammed -> jammed = true
  :: wheel[_pid] = (wheel[_pid] + 1) % WHEEL
  :: atomic { !jammed && last != _pid -> last = _pid; level++; assert(level < DEEP) }
  od
}

init
{
  atomic { run worker(); run worker(); run worker() }
}
