/* Remote references and process introspection: P[e]@label, P[e]:var (with a computed index),
   enabled(), pc_value(), _last, _nr_pr, _pid.

   The two P take turns on x; init watches them through remote references.  pc_value(0) is 3
   at the label `step`: spin numbers the states of a proctype in the order of its statements.
   spin warns "using enabled() outside never claim" (and the same for pc_value) and accepts
   the model.
   Counts measured with plain spin 6.5.2 (P[1] may run its first statement at any time, and
   at the end the three processes take their last steps in any order, which gives the
   matched states).  Partial order reduction changes nothing here.

   pids: P P :init:
   expect: flags=-DNOREDUCE states=53 transitions=73 matched=20 errors=0
   expect: states=53 transitions=73 matched=20 errors=0
*/
byte x;
byte seen;

active [2] proctype P()
{
	byte v;
	v = _pid + 1;
	x == _pid;
step:
	seen > _pid;
	x++;
done:
	seen == 3
}

init {
	P[0]@step;
	atomic {
		skip;
		assert(_last == _pid && P[_pid - 2]:v == 1 && pc_value(0) == 3 && !enabled(0))
	};
	seen = 2;
	P[1]@done;
	assert(x == 2 && P[1]:v == 2 && !enabled(1) && !enabled(0) && _nr_pr == 3);
	seen = 3;
	P[0]:v + P[1]:v == 3
}
