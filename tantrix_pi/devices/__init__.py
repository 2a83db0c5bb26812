"""The appliance's edges: camera frame sources, display, buttons, voice; each a small interface with a fake for tests.

Real back-ends (picamera2, luma, gpiozero pins, espeak-ng) are imported only when they are opened.
"""
