"""The long-lived scheduler: a hub's objects kept between events, re-solved where an event reaches."""
