"""Fish ("Hey, That's My Fish!"): hexagonal floes, the course's harnesses and strategies."""
