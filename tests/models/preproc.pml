/* Preprocessing: #include of a file in include/, #define with arguments (also one macro
   using another), #if/#elif/#else/#endif with defined(), #ifdef, #ifndef, and a -D
   definition from the command line (include/common.h gives N a default of 2 under #ifndef).

   One process counts `count` up to LIMIT: LIMIT is 2*N when N > 2, N otherwise.  Reachable
   states with NOREDUCE: the loop head with count = 0..LIMIT (LIMIT+1), the state after the
   guard with count = 0..LIMIT-1 (LIMIT), the assert, the end, and the empty system after the
   process died (3): 2*LIMIT + 4 states; every state but the initial one is reached by exactly
   one step, so transitions = states (pan counts the initial state as a transition).
   N=3: LIMIT=6, 16 states.  N=2 (default): LIMIT=2, 8 states.  N=1: LIMIT=1, 6 states.

   pids: counter
   expect: flags=-DNOREDUCE defines=-DN=3 states=16 transitions=16 errors=0
   expect: flags=-DNOREDUCE states=8 transitions=8 errors=0
   expect: flags=-DNOREDUCE defines=-DN=1 states=6 transitions=6 errors=0
*/
#include "include/common.h"

#if N > 2
#define LIMIT (N * 2)
#elif N == 2
#define LIMIT N
#else
#define LIMIT 1
#endif

#ifdef UNDEFINED_FEATURE
this line is not Promela and must never reach the parser
#else
byte count;
#endif

#define BIGGER(x) MAX(x, LIMIT)

active proctype counter()
{
	do
	:: count < LIMIT -> INC(count, 1)
	:: else -> break
	od;
#if defined(N) && N >= 1
	assert(count == LIMIT && BIGGER(count) == LIMIT && MIN(count, 0) == 0)
#endif
}
