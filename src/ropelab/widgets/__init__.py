"""Interactive controls for the live notebooks (Jupyter, Colab, Binder), one module per topic.

Each widget clamps its sliders to the valid range of the function it drives, and keeps its
drawing logic in a plain function that the tests call directly.
"""
