/* A liveness bug whose lasso, found under symmetry reduction, closes only up to a rotation
   that reorders the options of an if: the mapped copy of a step is another transition of
   the process.

   Three nodes pass a token held in a global: the holder may enter (incs++, incs--) or not,
   then passes the token to its successor by the option written for its own pid.
   progress  []<> (incs == 1): fails, the token may go round for ever with nobody entering
             (an acceptance cycle of pan -a).
   The rotation p -> p + 1 (mod 3) maps the option `_pid == 0 -> token = 1` to
   `_pid == 1 -> token = 2`, the second option: the if's options are permuted, which is
   allowed because no process is ever stored inside one (each is one atomic sequence that
   cannot block after its guard).  A swap of two nodes maps `_pid == 0 -> token = 1` to
   `_pid == 1 -> token = 0`, which is no option: the group is the cyclic group of order 3.
   The formula names no node.  Counts measured with plain spin 6.5.2.

   pids: node node node
   expect: pan=-a states=13 transitions=13 errors=1 order=3
*/
byte token;
byte incs;
active [3] proctype node()
{
	do
	:: token == _pid ->
	   if
	   :: incs++; incs--
	   :: skip
	   fi;
	   if
	   :: atomic { _pid == 0 -> token = 1 }
	   :: atomic { _pid == 1 -> token = 2 }
	   :: atomic { _pid == 2 -> token = 0 }
	   fi
	od
}
ltl progress { []<> (incs == 1) }
