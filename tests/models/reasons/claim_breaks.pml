/* Three identical processes; the ltl formula names flag[1] only, so pid 1 stays fixed and only
   pids 0 and 2 are interchangeable. */
byte cs;
bool flag[3];
active [3] proctype P() { do :: atomic { cs == 0 -> cs = 1 }; flag[_pid] = 1; flag[_pid] = 0; cs = 0 od }
ltl p1 { [] (flag[1] -> cs == 1) }
