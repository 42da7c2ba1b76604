/* Processes: `active [N]` with a priority, a proctype with parameters and a `provided`
   clause, `init` with a priority, `run` with arguments and a priority, run used as an
   expression (its value is the new pid), _pid, _nr_pr, get_priority/set_priority.

   pids follow the order of declaration: the two A are pids 0 and 1, init is 2, the B that
   init starts are 3, 4, 5.  SPIN 6.5.2 enforces priorities in verification: an enabled
   process runs only if no enabled process has a higher priority.  The provided clauses make
   the B run in the order of `turn` (a provided clause may not name parameters, so it uses
   _pid); the asserts check the order and the pids.  The two A may set their flags in either
   order: that diamond is the one matched state.
   Counts measured with plain spin 6.5.2.

   pids: A A :init: B B B
   expect: flags=-DNOREDUCE states=23 transitions=24 matched=1 errors=0
   expect: states=23 transitions=24 matched=1 errors=0
*/
byte turn;
byte seen[3];
byte n;
bit flag[2];
pid first;

active [2] proctype A() priority 2
{
	flag[_pid] = 1
}

init priority 1
{
	pid p;
	flag[0] && flag[1];
	atomic {
		first = run B(1, 2) priority 3;
		p = run B(2, 3);
		run B(3, 0) priority 2
	};
	assert(first == 3 && p == 4 && _nr_pr == 6 && get_priority(_pid) == 1);
	turn = 1;
	n == 3;
	set_priority(_pid, 4);
	assert(seen[0] == 1 && seen[1] == 2 && seen[2] == 3 && get_priority(_pid) == 4)
}

proctype B(byte id; byte next) provided (turn == _pid - 2)
{
	assert(id == _pid - 2);
	seen[n] = id;
	n++;
	turn = next
}
