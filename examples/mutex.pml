/* Three identical users share a critical section guarded by a test-and-set lock.
 * `topspin-py verify examples/mutex.pml` explores it with real SPIN; the assertion checks
 * mutual exclusion.
 */

#define N 3

bool lock;
byte in_cs;

proctype user()
{
	do
	:: atomic { !lock -> lock = true };
	   in_cs++;
	   assert(in_cs == 1);
	   in_cs--;
	   lock = false
	od
}

init {
	atomic {
		byte i;
		for (i : 1 .. N) {
			run user()
		}
	}
}
