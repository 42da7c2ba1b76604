/* expect: error line=4 message="unterminated" */
byte x;

#ifdef FEATURE
active proctype P() { x++ }
