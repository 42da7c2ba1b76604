/* Included by bad/error_in_include.pml: the error is on line 4 of this file. */
byte counter;

inline bump() { counter = counter + }
