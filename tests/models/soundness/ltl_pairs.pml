/* An ltl formula over some pairs of clients only: `apart` asks that client 0 is
   never inside together with client 1 or with client 2, and says nothing of 1 and 2.  The
   lock lets two clients in at a time, so plain SPIN finds 0 inside with 1.  pan moves the
   highest pid first, so a reduced search that took the clients for interchangeable would
   store "1 and 2 inside" (which the formula allows) first and match "0 and 1 inside" against
   it, never letting the claim look at the second: with the check of spin's claim planted
   away (every claim taken for mapped to itself), auto, enumerate and segmented all report no
   error (checked by hand).
   order: the claim's guard is the negation of the formula's body; (1 2) maps it onto itself,
   (0 1) and (0 2) do not: 2.
   expect: flags=-DNOREDUCE pan=-a states=25 transitions=31 errors=1 order=2
   Counts: plain spin 6.5.2; -DNOREDUCE, so that a missed error is the symmetry's doing. */
byte incs;
bool cs[3];
active [3] proctype client()
{
end:	do
	:: atomic { incs < 2 -> incs++ };
	   cs[_pid] = true;
	   cs[_pid] = false;
	   incs--
	od
}
ltl apart { [] (!(cs[0] && cs[1]) && !(cs[0] && cs[2])) }
