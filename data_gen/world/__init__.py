"""The simulated world: domains and vocabularies (data), personas, histories, derived preferences,
tasks and trajectory events. Typed frozen dataclasses and pure functions of a `random.Random`, so
evaluation suites in other domains can reuse them with their own `DomainSpec`s.
"""
