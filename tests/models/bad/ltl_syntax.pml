/* expect: error line=9 message="syntax error"
   The broken formula is on line 9.  (spin 6.5.2 itself blames a later line: it counts the
   lines of an ltl block wrongly.) */
byte x;

active proctype P() { do :: x < 3 -> x++ :: else -> x = 0 od }

ltl ok { [] (x <= 3) }
ltl broken { [] (x > ) }
