/* select over exactly the pids: a token `turn` names the user that may enter; the
   user inside hands it to any user, itself included, with `select (turn : 0 .. 2)`.  spin's
   lexer writes that select out as `if :: turn = 0 :: turn = 1 :: turn = 2 fi` (both bounds
   literal numbers, at most 32 apart: promela/selects.py), a set of assignments of pids, each
   one statement: a permutation of the three users maps the set onto itself.  turn starts at 0,
   a user's pid, which the group need not fix (only the transitions must commute with it).
   order: S3 on the users, 6.
   By hand: only the user t = turn moves; it is at its loop head, after the guard, after
   incrit++, after the assertion or after incrit-- (at the select): 5 places x 3 values of
   turn = 15 states, and 5 orbits under S3, which the orbit oracle counts.  Counts measured
   with plain spin 6.5.2.

   pids: user user user
   expect: flags=-DNOREDUCE states=15 transitions=22 matched=7 errors=0 order=6
*/
pid turn;
byte incrit;
active [3] proctype user()
{
end:	do
	:: turn == _pid ->
		incrit++;
		assert(incrit == 1);
		incrit--;
		select (turn : 0 .. 2)
	od
}
