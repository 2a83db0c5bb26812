"""The appliance's edges: display, buttons, voice; each a small interface with a fake for tests.

Real back-ends (luma, gpiozero pins, espeak-ng) are imported only when they are opened.
"""
