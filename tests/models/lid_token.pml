/* A token passed around by local id (a desugared `ref P` of [DG01]): `holder` holds the
   local id `_pid - 1` of the P that has the token (P are pids 1..3, started by init), 255
   (NOBODY) when nobody has it.  255 + 1 is no pid, so no permutation renames it.  A P grabs a
   free token, or waits (`waiting[_pid - 1]`, an array indexed with offset 1) while another
   holds it; the holder hands it to any waiting P by its local id (`holder = 0`, 1, 2: the
   options are a set, which a permutation reorders) or frees it when nobody waits.
   The group is S3 on the P: the constants 0, 1, 2 of `waiting[k] -> holder = k` are local
   ids, renamed k -> alpha(k + 1) - 1 with the indices, so the options map onto one another:
   order 6.  Counts measured with plain spin 6.5.2.

   pids: :init: P P P
   expect: flags=-DNOREDUCE states=74 transitions=152 matched=78 errors=0 order=6
*/
#define N 3
#define NOBODY 255
bool waiting[N];
byte holder = NOBODY;
byte ncrit;
init { atomic { run P(); run P(); run P() } }
proctype P()
{
end:	do
	:: atomic { holder == NOBODY -> holder = _pid - 1 }
	:: atomic { holder != NOBODY && holder != _pid - 1 -> waiting[_pid - 1] = true }
	   atomic { holder == _pid - 1 -> waiting[_pid - 1] = false }
	:: holder == _pid - 1 ->
	   ncrit++;
	   assert(ncrit == 1);
	   ncrit--;
	   if
	   :: atomic { waiting[0] -> holder = 0 }
	   :: atomic { waiting[1] -> holder = 1 }
	   :: atomic { waiting[2] -> holder = 2 }
	   :: atomic { !waiting[0] && !waiting[1] && !waiting[2] -> holder = NOBODY }
	   fi
	od
}
