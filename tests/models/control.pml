/* Control flow: if/do with else, break, goto and labels, skip, atomic, d_step, unless,
   `for (i : lo .. hi)`, `for (i in array)`, `select (i : lo .. hi)`, inline (with
   parameters, one inline calling another), timeout, end labels.

   The asserts check the computed values, so errors=0 also checks the semantics.
   Counts measured with plain spin 6.5.2; select picks one of 3 values, and each choice
   leads through its own copy of the rest of the run (so no state is matched).  The waiter's
   timeout becomes executable only when ctl is blocked at its end label.

   pids: ctl waiter
   expect: flags=-DNOREDUCE states=71 transitions=71 errors=0
   expect: states=71 transitions=71 errors=0
*/
#define SIZE 4

byte a[SIZE];
byte sum;
byte picked;
byte steps;
bool done;

inline add(var, v) {
	var = var + v
}

inline twice(var) {
	add(var, var)
}

active proctype ctl()
{
	byte i;
	for (i : 0 .. SIZE - 1) {
		add(a[i], i + 1)
	};
	twice(a[3]);                      /* a = 1 2 3 8 */
	for (i in a) {
		sum = sum + a[i]
	};
	assert(sum == 14 && i == SIZE);
	select (picked : 1 .. 3);
	if
	:: picked == 1 -> goto one
	:: picked == 2 -> skip
	:: else -> sum = sum + 1
	fi;
	d_step {
		sum = sum * 2;
		steps = sum / 4
	};
	atomic {
		sum > 0 -> sum--
	};
	do
	:: sum > 27 -> sum--
	:: sum == 27 -> break
	:: else -> goto skipped             /* never taken: sum >= 27 here */
	od;
one:
	{
		do
		:: steps < 10 -> steps++
		od
	} unless { steps == 8 || picked == 1 };
skipped:
	assert(picked == 1 || sum == 27 && steps == 8);
	done = true;
end:
	(false)
}

active proctype waiter()
{
	timeout -> assert(done)
}
