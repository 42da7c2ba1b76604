/* Mailboxes indexed by pid (`box[_pid]!m`, the shape the public channels of [DG01]
   desugar into): each process sends its pid to its own mailbox and checks what it reads back.
   The symmetry is S3 on the processes, each taking its mailbox along: a channel array indexed
   by pid holds its own channels' ids for ever, so a permutation must move box[i] with pid i
   (symmetry/validity/, channel_ref) and leaves the array itself in place.  The orbit oracle of
   tests/oracles/test_differential.py checks every strategy's count.  Counts measured with plain spin
   6.5.2.

   pids: P P P
   expect: flags=-DNOREDUCE states=75 transitions=226 matched=151 errors=0
*/
chan box[3] = [1] of {byte};

active [3] proctype P()
{
	byte x;
	do
	:: box[_pid]!_pid
	:: box[_pid]?x -> assert(x == _pid)
	od
}
