/* Copies started by init, as BEEM writes them: `atomic { run Q_0(); run Q_1(); run Q_2() }`
   after init (pid 0), so Q_k has pid k + 1 and names its own counter as count[k].  copies.py
   merges them into one proctype Q, keeps the three runs (now `run Q()`, in the same order,
   inside the same atomic sequence, so the pids stay 1, 2, 3) and writes count[k] as
   count[_pid - 1]: a pid-indexed array with offset 1.  Each copy also sends its index k to the
   shared channel done, which init empties; none of them ends.
   order: the three processes are interchangeable with their counters and the values they
   send: S3, 6.
   expect: flags="-DSAFETY -DNOREDUCE" states=5001 transitions=17852 errors=0 order=6
   pids: :init: Q Q Q
   Counts: plain spin 6.5.2 on this file as written. */
byte count[3];
chan done = [3] of { byte };

proctype Q_0()
{
end:	do
	:: count[0] < 1 -> count[0]++
	:: count[0] == 1 -> done!0; count[0] = 0
	od
}

proctype Q_1()
{
end:	do
	:: count[1] < 1 -> count[1]++
	:: count[1] == 1 -> done!1; count[1] = 0
	od
}

proctype Q_2()
{
end:	do
	:: count[2] < 1 -> count[2]++
	:: count[2] == 1 -> done!2; count[2] = 0
	od
}

init
{
	atomic { run Q_0(); run Q_1(); run Q_2() }
end:	do
	:: done?_
	od
}
