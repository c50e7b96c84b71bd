[New LWP 2818]
[New LWP 2819]
[New LWP 2820]
[New LWP 2821]
[New LWP 2822]
[New LWP 2823]
[New LWP 2824]
[New LWP 2825]
[New LWP 2829]
[New LWP 2830]
[Thread debugging using libthread_db enabled]
Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".
[New Thread 0x7f467ffd5000 (LWP 2888)]
[New Thread 0x7f43e152f000 (LWP 2889)]
[Detaching after fork from child process 2890]
[Thread 0x7f467ffd5000 (LWP 2888) exited]

Thread 1 "jacobi3d_cuda" stopped.
0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  Id   Target Id                                          Frame 
* 1    Thread 0x7f46a0b3c000 (LWP 2816) "jacobi3d_cuda"   0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  2    Thread 0x7f469ffff000 (LWP 2818) "jacobi3d_cuda"   0x00007f467a81485b in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
  3    Thread 0x7f469f7fe000 (LWP 2819) "jacobi3d_cuda"   0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  4    Thread 0x7f469effd000 (LWP 2820) "jacobi3d_cuda"   0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  5    Thread 0x7f469e7fc000 (LWP 2821) "jacobi3d_cuda"   0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  6    Thread 0x7f4697fff000 (LWP 2822) "jacobi3d_cuda"   0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  7    Thread 0x7f469dffb000 (LWP 2823) "jacobi3d_cuda"   0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  8    Thread 0x7f469d7fa000 (LWP 2824) "jacobi3d_cuda"   0x00007f46a052752d in syscall () from /lib/x86_64-linux-gnu/libc.so.6
  9    Thread 0x7f467942c000 (LWP 2825) "cuda0000300000e" 0x00007f46a051b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
  10   Thread 0x7f4672dde000 (LWP 2829) "async"           0x00007f46a052a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6
  11   Thread 0x7f44587c1000 (LWP 2830) "cuda-EvtHandlr"  0x00007f46a0498e51 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  13   Thread 0x7f43e152f000 (LWP 2889) "jacobi3d_cuda"   0x00007f46a052a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6

Thread 13 (Thread 0x7f43e152f000 (LWP 2889) "jacobi3d_cuda"):
#0  0x00007f46a052a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f43e1a5e796 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#2  0x00007f43e1a5bcf9 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#3  0x00007f43e1a5dd5a in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#4  0x00007f43e1a6888a in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#5  0x00007f43e1a68d9b in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#6  0x00007f43e1a2190d in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#7  0x00007f43e1c76dfd in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#8  0x00007f46a0cb713a in ampi::core::(anonymous namespace)::thread_main(void*) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f46a049cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#10 0x00007f46a0529ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 11 (Thread 0x7f44587c1000 (LWP 2830) "cuda-EvtHandlr"):
#0  0x00007f46a0498e51 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f46a049b8cd in pthread_cond_wait () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f43e1a5bddb in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#3  0x00007f43e1a5dd5a in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#4  0x00007f43e18431fd in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#5  0x00007f43e18a5939 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#6  0x00007f43e16414dc in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#7  0x00007f43e195e2a6 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#8  0x00007f467b30493b in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#9  0x00007f467a7ba9c4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#10 0x00007f467a6bad73 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#11 0x00007f46a0cb713a in ampi::core::(anonymous namespace)::thread_main(void*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f46a049cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#13 0x00007f46a0529ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 10 (Thread 0x7f4672dde000 (LWP 2829) "async"):
#0  0x00007f46a052a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f46a133bfb0 in ucs_event_set_wait () from /work/main/build-gpu/ucx-cuda/lib/libucs.so.0
#2  0x00007f46a1320090 in ?? () from /work/main/build-gpu/ucx-cuda/lib/libucs.so.0
#3  0x00007f46a049cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#4  0x00007f46a0529ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 9 (Thread 0x7f467942c000 (LWP 2825) "cuda0000300000e"):
#0  0x00007f46a051b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f467a6cdf27 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#2  0x00007f467a7ba967 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f467a6bad73 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f46a049cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#5  0x00007f46a0529ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 8 (Thread 0x7f469d7fa000 (LWP 2824) "jacobi3d_cuda"):
#0  0x00007f46a052752d in syscall () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f43e1c29930 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#2  0x00007f43e164852e in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#3  0x00007f43e195e2a6 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#4  0x00007f467a717b37 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f467a704ff0 in cuEventQuery () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f46a0c9a8c6 in ampi::gpu::DevPtrCache::poll_copies_slow() () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f46a0ca4725 in ampi::ucx::Transport::progress_net() () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f46a0caeae7 in ampi::Pe::run() () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f46a0cba16f in (anonymous namespace)::run_pes(ampi::PeConfig const&, ampi::pmi::ProcessKeys*, int (*)(int, char**, char**), std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > const&, char**)::{lambda(int)#1}::operator()(int) const () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f46a08ecdb4 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#11 0x00007f46a049cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#12 0x00007f46a0529ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 7 (Thread 0x7f469dffb000 (LWP 2823) "jacobi3d_cuda"):
#0  0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f46a04a341b in pthread_rwlock_wrlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f467b352bb4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f467a5aa95f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f467a713079 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f467a703c00 in cuStreamCreate () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f46a0c99ffa in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f46a0cd8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f46a0cd91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f46a0ca2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f46a0ca2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f46a0cad823 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f46a0d728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f46a0cae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f46a0cb46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f46a0e1d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#16 0x00007f46a0e2599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#17 0x0000000000000000 in ?? ()

Thread 6 (Thread 0x7f4697fff000 (LWP 2822) "jacobi3d_cuda"):
#0  0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f46a04a341b in pthread_rwlock_wrlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f467b352bb4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f467a5aa95f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f467a713079 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f467a703c00 in cuStreamCreate () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f46a0c99ffa in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f46a0cd8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f46a0cd91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f46a0ca2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f46a0ca2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f46a0cad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f46a0d728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f46a0cae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f46a0cb46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f46a0e1d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#16 0x00007f46a0e2599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#17 0x0000000000000000 in ?? ()

Thread 5 (Thread 0x7f469e7fc000 (LWP 2821) "jacobi3d_cuda"):
#0  0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f46a04a341b in pthread_rwlock_wrlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f467b352bb4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f467a5aa95f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f467a713079 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f467a703c00 in cuStreamCreate () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f46a0c99ffa in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f46a0cd8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f46a0cd91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f46a0ca2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f46a0ca2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f46a0cad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f46a0d728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f46a0cae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f46a0cb46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f46a0e1d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#16 0x00007f46a0e2599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#17 0x0000000000000000 in ?? ()

Thread 4 (Thread 0x7f469effd000 (LWP 2820) "jacobi3d_cuda"):
#0  0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f46a04a341b in pthread_rwlock_wrlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f467b352bb4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f467a5aa95f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f467a713079 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f467a703c00 in cuStreamCreate () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f46a0c99ffa in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f46a0cd8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f46a0cd91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f46a0ca2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f46a0ca2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f46a0cad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f46a0d728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f46a0cae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f46a0cb46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f46a0e1d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#16 0x00007f46a0e2599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#17 0x0000000000000000 in ?? ()

Thread 3 (Thread 0x7f469f7fe000 (LWP 2819) "jacobi3d_cuda"):
#0  0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f46a04a296a in pthread_rwlock_rdlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f467a6a35e8 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f467a75d933 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f467a753a00 in cuEventRecord () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f46a0c99ebb in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#6  0x00007f46a0cd8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f46a0cd91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f46a0ca2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f46a0ca2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f46a0cad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f46a0d728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f46a0cae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f46a0cb46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f46a0e1d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f46a0e2599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#16 0x0000000000000000 in ?? ()

Thread 2 (Thread 0x7f469ffff000 (LWP 2818) "jacobi3d_cuda"):
#0  0x00007f467a81485b in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#1  0x00007f467a5d36c3 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#2  0x00007f467a6121bb in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f467b351f17 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f467b352365 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f467a5dfe24 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f467a6a66a3 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#7  0x00007f467a6a6a5c in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#8  0x00007f467a83e04c in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#9  0x00007f467a855a78 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#10 0x00007f467a81942f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#11 0x00007f467a81977f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#12 0x00007f467a6a23c2 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#13 0x00007f467b3695b8 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#14 0x00007f467a5aa9c1 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#15 0x00007f467a713079 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#16 0x00007f467a703c00 in cuStreamCreate () from /usr/local/nvidia/lib64/libcuda.so.1
#17 0x00007f46a0c99ffa in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#18 0x00007f46a0cd8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#19 0x00007f46a0cd91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#20 0x00007f46a0ca2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#21 0x00007f46a0ca2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#22 0x00007f46a0cad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#23 0x00007f46a0d728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#24 0x00007f46a0cae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#25 0x00007f46a0cb46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#26 0x00007f46a0e1d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#27 0x00007f46a0e2599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#28 0x0000000000000000 in ?? ()

Thread 1 (Thread 0x7f46a0b3c000 (LWP 2816) "jacobi3d_cuda"):
#0  0x00007f46a0498d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f46a04a341b in pthread_rwlock_wrlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f467b352bb4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f467a5aa95f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f467a713079 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f467a703c00 in cuStreamCreate () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f46a0c99ffa in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f46a0cd8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f46a0cd91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f46a0ca2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f46a0ca2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f46a0cad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f46a0d728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f46a0cae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f46a0cb46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f46a0e1d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#16 0x00007f46a0e2599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#17 0x0000000000000000 in ?? ()
[Inferior 1 (process 2816) detached]
