/* An initial value that names a pid: the lock `owner` starts held by user 2
   (`pid owner = 2`); a user takes it when it is FREE, enters, and frees it.  The transitions
   name pids through _pid only, so every permutation of the three users maps them onto
   themselves; the initial state is not fixed (owner = 2 becomes owner = 1 under (1 2)), and
   need not be: pan goes on from the states it reaches, and the image of a path from the
   initial state is a path from the image, so every reachable orbit is met.  Global
   declarations are therefore compared without their initial values (symmetry/validity/).
   order: S3, 6.
   By hand (correct variant): with the lock free every user is at its loop head (1 state);
   otherwise its holder (3 choices) is at its loop head, after the guard, after inside++,
   after the assertion or after inside-- (5 places): 1 + 15 = 16 states, 1 + 5 = 6 orbits,
   which the orbit oracle counts.  With -DEARLY_RELEASE the holder frees the lock before its
   assertion, another user enters and the assertion fails: every strategy must find it.
   Counts measured with plain spin 6.5.2.

   pids: P P P
   expect: flags=-DNOREDUCE states=16 transitions=19 matched=3 errors=0 order=6
   expect: flags=-DNOREDUCE defines=-DEARLY_RELEASE states=15 transitions=16 errors=1 order=6
*/
#define FREE 255
pid owner = 2;
byte inside;
active [3] proctype P()
{
end:	do
	:: atomic { owner == FREE -> owner = _pid }
	:: owner == _pid ->
		inside++;
#ifdef EARLY_RELEASE
		owner = FREE;
#endif
		assert(inside == 1);
		inside--;
#ifndef EARLY_RELEASE
		owner = FREE
#else
		skip
#endif
	od
}
