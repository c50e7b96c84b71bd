[New LWP 478]
[New LWP 479]
[New LWP 480]
[New LWP 481]
[New LWP 482]
[New LWP 483]
[New LWP 484]
[New LWP 485]
[New LWP 489]
[New LWP 490]
[Thread debugging using libthread_db enabled]
Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".
[New Thread 0x7f0a5ffd5000 (LWP 598)]
[New Thread 0x7f07dffff000 (LWP 599)]
[Detaching after fork from child process 600]
[Thread 0x7f0a5ffd5000 (LWP 598) exited]

Thread 1 "jacobi3d_cuda" stopped.
0x00007f0a88b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
  Id   Target Id                                         Frame 
* 1    Thread 0x7f0a890e8000 (LWP 476) "jacobi3d_cuda"   0x00007f0a88b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
  2    Thread 0x7f0a885ff000 (LWP 478) "jacobi3d_cuda"   0x00007f0a5a814956 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
  3    Thread 0x7f0a87dfe000 (LWP 479) "jacobi3d_cuda"   0x00007f0a88b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
  4    Thread 0x7f0a875fd000 (LWP 480) "jacobi3d_cuda"   0x00007f0a5a814947 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
  5    Thread 0x7f0a7ffff000 (LWP 481) "jacobi3d_cuda"   0x00007f0a88b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
  6    Thread 0x7f0a86dfc000 (LWP 482) "jacobi3d_cuda"   0x00007f0a88a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  7    Thread 0x7f0a865fb000 (LWP 483) "jacobi3d_cuda"   0x00007f0a88b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
  8    Thread 0x7f0a85dfa000 (LWP 484) "jacobi3d_cuda"   0x00007f0a88a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  9    Thread 0x7f0a6f078000 (LWP 485) "cuda0000380000f" 0x00007f0a88b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
  10   Thread 0x7f0a6d656000 (LWP 489) "async"           0x00007f0a88b2a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6
  11   Thread 0x7f0840fc3000 (LWP 490) "cuda-EvtHandlr"  0x00007f0a88a98e51 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  13   Thread 0x7f07dffff000 (LWP 599) "jacobi3d_cuda"   0x00007f0a88b2a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6

Thread 13 (Thread 0x7f07dffff000 (LWP 599) "jacobi3d_cuda"):
#0  0x00007f0a88b2a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f07e4a5e796 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#2  0x00007f07e4a5bcf9 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#3  0x00007f07e4a5dd5a in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#4  0x00007f07e4a6888a in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#5  0x00007f07e4a68d9b in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#6  0x00007f07e4a2190d in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#7  0x00007f07e4c76dfd in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#8  0x00007f0a88a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#9  0x00007f0a88b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 11 (Thread 0x7f0840fc3000 (LWP 490) "cuda-EvtHandlr"):
#0  0x00007f0a88a98e51 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f0a88a9b8cd in pthread_cond_wait () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f07e4a5bddb in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#3  0x00007f07e4a5dd5a in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#4  0x00007f07e48431fd in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#5  0x00007f07e48a5939 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#6  0x00007f07e46414dc in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#7  0x00007f07e495e2a6 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#8  0x00007f0a5b30493b in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#9  0x00007f0a5a7ba9c4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#10 0x00007f0a5a6bad73 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#11 0x00007f0a892bdf0a in ampi::core::(anonymous namespace)::thread_main(void*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f0a88a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#13 0x00007f0a88b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 10 (Thread 0x7f0a6d656000 (LWP 489) "async"):
#0  0x00007f0a88b2a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f0a89901fb0 in ucs_event_set_wait () from /work/main/build-gpu/ucx-cuda/lib/libucs.so.0
#2  0x00007f0a898e6090 in ?? () from /work/main/build-gpu/ucx-cuda/lib/libucs.so.0
#3  0x00007f0a88a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#4  0x00007f0a88b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 9 (Thread 0x7f0a6f078000 (LWP 485) "cuda0000380000f"):
#0  0x00007f0a88b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f0a5a6cdf27 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#2  0x00007f0a5a7ba967 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f0a5a6bad73 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f0a88a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#5  0x00007f0a88b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 8 (Thread 0x7f0a85dfa000 (LWP 484) "jacobi3d_cuda"):
#0  0x00007f0a88a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f0a88aa296a in pthread_rwlock_rdlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f0a5b316b16 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f0a5a5826a9 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f0a5a582f3a in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f0a5a584ae0 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f0a5a733b2a in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#7  0x00007f0a5a72f6d0 in cuMemcpy2DAsync_v2 () from /usr/local/nvidia/lib64/libcuda.so.1
#8  0x00007f0a8929fb8a in ampi::gpu::DevPtrCache::copy_rects(void*, void*, ampi::gpu::DevPtrCache::Rect const*, unsigned long, bool) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f0a892deb37 in ampi::p2p::device_pack(ampi::datatype::Type const&, void*, unsigned long, void*, bool) () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f0a892dc429 in ampi::p2p::unpack_any(ampi::datatype::Type const&, void const*, unsigned long, unsigned long, void*, unsigned long) () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f0a892e2746 in ampi::p2p::complete(ampi::p2p::Request&) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f0a892a0d1d in ampi::gpu::DevPtrCache::poll_copies_slow() () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f0a892ab005 in ampi::ucx::Transport::progress_net() () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f0a892b5577 in ampi::Pe::run() () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f0a892c103f in (anonymous namespace)::run_pes(ampi::PeConfig const&, ampi::pmi::ProcessKeys*, int (*)(int, char**, char**), std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > const&, char**)::{lambda(int)#1}::operator()(int) const () from /work/main/build-gpu/lib/libampi.so.0
#16 0x00007f0a88eecdb4 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#17 0x00007f0a88a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#18 0x00007f0a88b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 7 (Thread 0x7f0a865fb000 (LWP 483) "jacobi3d_cuda"):
#0  0x00007f0a88b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f0a892a94bf in ampi::net::Port::wait(int) () from /work/main/build-gpu/lib/libampi.so.0
#2  0x00007f0a892b54d9 in ampi::Pe::run() () from /work/main/build-gpu/lib/libampi.so.0
#3  0x00007f0a892c103f in (anonymous namespace)::run_pes(ampi::PeConfig const&, ampi::pmi::ProcessKeys*, int (*)(int, char**, char**), std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > const&, char**)::{lambda(int)#1}::operator()(int) const () from /work/main/build-gpu/lib/libampi.so.0
#4  0x00007f0a88eecdb4 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#5  0x00007f0a88a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#6  0x00007f0a88b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 6 (Thread 0x7f0a86dfc000 (LWP 482) "jacobi3d_cuda"):
#0  0x00007f0a88a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f0a88aa296a in pthread_rwlock_rdlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f0a5a6a35e8 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f0a5a75d933 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f0a5a753a00 in cuEventRecord () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f0a892a03b3 in ampi::gpu::DevPtrCache::watch_stream(ampi::gpu::CUstream_st*, std::function<void (int)>) () from /work/main/build-gpu/lib/libampi.so.0
#6  0x00007f0a892ad9cd in ampi::(anonymous namespace)::yield_until(ampi::Rank&, void*, void*) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f0a8937ba6d in PMPIX_Stream_free () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f0a8557c88e in ?? ()
#9  0x00007f0a68097a10 in ?? ()
#10 0x00007f0814000000 in ?? ()
#11 0x403e33cba6ba9cfd in ?? ()
#12 0x00007f0a7cdffe80 in ?? ()
#13 0x403e30197daec640 in ?? ()
#14 0x0000000000000002 in ?? ()
#15 0x00007f0a7cdffe50 in ?? ()
#16 0x0000004000000040 in ?? ()
#17 0x00007f0a7cdffee0 in ?? ()
#18 0x00007f0a7cdffe00 in ?? ()
#19 0x00007f0a7cdffdc0 in ?? ()
#20 0x00007f0a7cdffde0 in ?? ()
#21 0x0000000000000040 in ?? ()
#22 0x2c22b33900000040 in ?? ()
#23 0x0000000000000000 in ?? ()

Thread 5 (Thread 0x7f0a7ffff000 (LWP 481) "jacobi3d_cuda"):
#0  0x00007f0a88b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f0a892a94bf in ampi::net::Port::wait(int) () from /work/main/build-gpu/lib/libampi.so.0
#2  0x00007f0a892b54d9 in ampi::Pe::run() () from /work/main/build-gpu/lib/libampi.so.0
#3  0x00007f0a892c103f in (anonymous namespace)::run_pes(ampi::PeConfig const&, ampi::pmi::ProcessKeys*, int (*)(int, char**, char**), std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > const&, char**)::{lambda(int)#1}::operator()(int) const () from /work/main/build-gpu/lib/libampi.so.0
#4  0x00007f0a88eecdb4 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#5  0x00007f0a88a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#6  0x00007f0a88b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 4 (Thread 0x7f0a875fd000 (LWP 480) "jacobi3d_cuda"):
#0  0x00007f0a5a814947 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#1  0x00007f0a5a5d36c3 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#2  0x00007f0a5a6121bb in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f0a5b351f17 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f0a5a7b9da0 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f0a5a635620 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f0a5a552b1d in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#7  0x00007f0a5a717b54 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#8  0x00007f0a5a704ff0 in cuEventQuery () from /usr/local/nvidia/lib64/libcuda.so.1
#9  0x00007f0a892a09d6 in ampi::gpu::DevPtrCache::poll_copies_slow() () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f0a892ab005 in ampi::ucx::Transport::progress_net() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f0a892b5577 in ampi::Pe::run() () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f0a892c103f in (anonymous namespace)::run_pes(ampi::PeConfig const&, ampi::pmi::ProcessKeys*, int (*)(int, char**, char**), std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > const&, char**)::{lambda(int)#1}::operator()(int) const () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f0a88eecdb4 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#14 0x00007f0a88a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#15 0x00007f0a88b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 3 (Thread 0x7f0a87dfe000 (LWP 479) "jacobi3d_cuda"):
#0  0x00007f0a88b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f0a892a94bf in ampi::net::Port::wait(int) () from /work/main/build-gpu/lib/libampi.so.0
#2  0x00007f0a892b54d9 in ampi::Pe::run() () from /work/main/build-gpu/lib/libampi.so.0
#3  0x00007f0a892c103f in (anonymous namespace)::run_pes(ampi::PeConfig const&, ampi::pmi::ProcessKeys*, int (*)(int, char**, char**), std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > const&, char**)::{lambda(int)#1}::operator()(int) const () from /work/main/build-gpu/lib/libampi.so.0
#4  0x00007f0a88eecdb4 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#5  0x00007f0a88a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#6  0x00007f0a88b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 2 (Thread 0x7f0a885ff000 (LWP 478) "jacobi3d_cuda"):
#0  0x00007f0a5a814956 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#1  0x00007f0a5a5d36c3 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#2  0x00007f0a5a6121bb in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f0a5b351f17 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f0a5b352365 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f0a5a5dfe24 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f0a5b350589 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#7  0x00007f0a5a57edcb in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#8  0x00007f0a5a6f4d47 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#9  0x00007f0a5a6dfaa0 in cuMemFree_v2 () from /usr/local/nvidia/lib64/libcuda.so.1
#10 0x00007f0a88c1d680 in ucm_cuMemFree_v2 () from /work/main/build-gpu/ucx-cuda/lib/ucx/libucm_cuda.so.0
#11 0x00007f0a89614c73 in ?? () from /usr/local/cuda/lib64/libcudart.so.13
#12 0x00007f0a89651598 in cudaFree () from /usr/local/cuda/lib64/libcudart.so.13
#13 0x00007f0a855b145c in ?? ()
#14 0x0000000000000000 in ?? ()

Thread 1 (Thread 0x7f0a890e8000 (LWP 476) "jacobi3d_cuda"):
#0  0x00007f0a88b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f0a892a94bf in ampi::net::Port::wait(int) () from /work/main/build-gpu/lib/libampi.so.0
#2  0x00007f0a892b54d9 in ampi::Pe::run() () from /work/main/build-gpu/lib/libampi.so.0
#3  0x00007f0a892c103f in (anonymous namespace)::run_pes(ampi::PeConfig const&, ampi::pmi::ProcessKeys*, int (*)(int, char**, char**), std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > const&, char**)::{lambda(int)#1}::operator()(int) const () from /work/main/build-gpu/lib/libampi.so.0
#4  0x00007f0a892c251c in (anonymous namespace)::run_job(int, char**, char**, int (*)(int, char**, char**), (anonymous namespace)::StartPoint) () from /work/main/build-gpu/lib/libampi.so.0
#5  0x00007f0a892c48a9 in ampi_start () from /work/main/build-gpu/lib/libampi.so.0
#6  0x00007f0a88a2a304 in __libc_start_main () from /lib/x86_64-linux-gnu/libc.so.6
#7  0x000055ae8c177291 in ?? ()
[Inferior 1 (process 476) detached]
