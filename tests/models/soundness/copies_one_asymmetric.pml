/* Four textual copies P_0..P_3 (active, pids 0..3) whose index k acts as an id everywhere
   (flag[k]) except in one place: the assertion `k != 3 || flag[0] == 0`, which only copy 3
   can violate, and only while copy 0 holds its flag.  copies.py merges them into one
   proctype with flag[_pid] and `_pid != 3`: the comparison of the own pid with the constant 3,
   and flag[0], fix pids 3 and 0.
   order: only pids 1 and 2 may swap: 2.  (Taking all of S4 would let the reduced search stand
   for the violating state by one where copy 1 or 2, which cannot fail, makes the check.)
   expect: flags="-DSAFETY -DNOREDUCE" states=29 transitions=42 errors=1 order=2
   Counts: plain spin 6.5.2 on this file as written; -DNOREDUCE, so that a missed error is
   the symmetry's doing. */
bool flag[4];

active proctype P_0()
{
	do
	:: flag[0] = 1;
	   assert(0 != 3 || flag[0] == 0);
	   flag[0] = 0
	od
}

active proctype P_1()
{
	do
	:: flag[1] = 1;
	   assert(1 != 3 || flag[0] == 0);
	   flag[1] = 0
	od
}

active proctype P_2()
{
	do
	:: flag[2] = 1;
	   assert(2 != 3 || flag[0] == 0);
	   flag[2] = 0
	od
}

active proctype P_3()
{
	do
	:: flag[3] = 1;
	   assert(3 != 3 || flag[0] == 0);
	   flag[3] = 0
	od
}
