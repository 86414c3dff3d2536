"""The reference solutions of the problem sets (instructors only: the answer
key; never in a student bundle). Each passes the grader for every student id.
"""
