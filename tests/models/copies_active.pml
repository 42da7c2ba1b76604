/* Three textual copies of one process, as generators write them: P_k names its own flag as
   flag[k] and its own slot of the queue of waiters as k; the copies are active and declared
   one after the other, so P_k has pid k.  copies.py merges them into `active [3] proctype P`
   with flag[_pid] and `_pid` for the constant k; every use is a use of the own pid (array
   index, a value stored and compared for equality), so all of S3 is valid.
   order: S3 on the three copies, 6.
   expect: flags="-DSAFETY -DNOREDUCE" states=180 transitions=451 errors=0 order=6
   pids: P P P
   Counts: plain spin 6.5.2 on this file as written. */
bool flag[3];
byte owner = 255;
chan waiting = [3] of { byte };

active proctype P_0()
{
	do
	:: flag[0] = 1;
	   waiting!0;
	   atomic { owner == 255 && waiting?[0] -> waiting?0; owner = 0 };
	   assert(owner == 0);
	   owner = 255;
	   flag[0] = 0
	od
}

active proctype P_1()
{
	do
	:: flag[1] = 1;
	   waiting!1;
	   atomic { owner == 255 && waiting?[1] -> waiting?1; owner = 1 };
	   assert(owner == 1);
	   owner = 255;
	   flag[1] = 0
	od
}

active proctype P_2()
{
	do
	:: flag[2] = 1;
	   waiting!2;
	   atomic { owner == 255 && waiting?[2] -> waiting?2; owner = 2 };
	   assert(owner == 2);
	   owner = 255;
	   flag[2] = 0
	od
}
