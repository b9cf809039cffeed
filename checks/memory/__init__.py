"""Memory: GPU memory and the processes holding it, the allocator configuration and fragmentation."""
