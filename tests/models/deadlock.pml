/* Real bugs: two workers take two locks in opposite order and can deadlock (pan reports an
   invalid end state); with -DORDERED they take them in the same order and all is well.
   Also: printf with several conversions, printm of an mtype variable, a parameter list with
   two names in one declaration, an end label on the monitor's loop, and `run` inside atomic.

   The monitor asserts, atomically, that the state is busy only while a worker holds both
   locks; with -DORDERED -DRACE a worker counts itself out before it sets the state idle,
   and the monitor catches it ("assertion violated (holders==1)").  The default run stops
   at the first error, "invalid end state", when each worker holds one lock.
   Counts measured with plain spin 6.5.2.

   pids: monitor :init: worker worker
   expect: flags=-DNOREDUCE states=34 transitions=53 errors=1
   expect: flags=-DNOREDUCE defines=-DORDERED states=49 transitions=74 matched=25 errors=0
   expect: defines=-DORDERED states=41 transitions=50 errors=0
   expect: flags=-DNOREDUCE defines="-DORDERED -DRACE" states=23 transitions=23 errors=1
*/
mtype = { idle, busy };

mtype state = idle;
bit lock[2];
byte holders;

proctype worker(byte first, second)
{
	atomic { lock[first] == 0 -> lock[first] = 1 };
	printf("worker %d has lock %d of %d\n", _pid, first, 2);
	atomic { lock[second] == 0 -> lock[second] = 1; holders++ };
	state = busy;
	printm(state);
	printf("\n");
#ifdef RACE
	holders--;
	state = idle;
#else
	state = idle;
	holders--;
#endif
	lock[second] = 0;
	lock[first] = 0
}

active proctype monitor()
{
end:
	do
	:: atomic { state == busy -> assert(holders == 1) }
	od
}

init {
	atomic {
		run worker(0, 1);
#ifdef ORDERED
		run worker(0, 1)
#else
		run worker(1, 0)
#endif
	}
}
