/* Progress: progress labels (progress, progress_send), the non-progress variable np_ in a
   hand-written never claim, and pan's built-in non-progress search (-DNP, pan -l).

   Two processes hand a token back and forth; each hand-over passes a progress label.  With
   -DSTARVE the sender may also spin without handing over: a non-progress cycle.
   -DUSERCLAIM adds the classic non-progress claim written with np_, checked with pan -a;
   it must find what -DNP / -l finds.
   Counts measured with plain spin 6.5.2.  The safety run with NOREDUCE and STARVE by hand:
   for each value of spins, the sender at its loop head, after guard 1 or after guard 2 with
   token 0, and the receiver at its head or after its guard with token 1: 5 states, twice =
   10; each of them has one successor except the loop head with token 0 (two), so 12 edges,
   and pan reports 12 + 1 (the initial state) = 13 transitions, 13 - 10 = 3 matched.

   pids: sender receiver
   expect: flags=-DNP pan=-l states=6 transitions=7 errors=0
   expect: flags=-DNP pan=-l defines=-DSTARVE states=7 transitions=8 errors=1
   expect: defines=-DUSERCLAIM pan=-a states=6 transitions=7 errors=0
   expect: defines="-DUSERCLAIM -DSTARVE" pan=-a states=18 transitions=21 errors=1
   expect: flags=-DNOREDUCE defines=-DSTARVE states=10 transitions=13 matched=3 errors=0
*/
byte token;
byte spins;

active proctype sender()
{
	do
	:: token == 0 ->
progress_send:
	   token = 1
#ifdef STARVE
	:: token == 0 -> spins = 1 - spins
#endif
	od
}

active proctype receiver()
{
	do
	:: token == 1 ->
progress:
	   token = 0
	od
}

#ifdef USERCLAIM
never {    /* <>[] np_ : from some point on, no progress label is ever passed */
	do
	:: true
	:: np_ -> break
	od;
accept:
	do
	:: np_
	od
}
#endif
