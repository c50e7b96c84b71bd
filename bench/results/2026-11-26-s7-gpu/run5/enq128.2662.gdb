[New LWP 2664]
[New LWP 2665]
[New LWP 2666]
[New LWP 2667]
[New LWP 2668]
[New LWP 2669]
[New LWP 2670]
[New LWP 2671]
[New LWP 2675]
[New LWP 2676]
[Thread debugging using libthread_db enabled]
Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".
[New Thread 0x7f7b3ffd5000 (LWP 2738)]
[New Thread 0x7f78bed2f000 (LWP 2739)]
[Detaching after fork from child process 2740]
[Thread 0x7f7b3ffd5000 (LWP 2738) exited]

Thread 1 "jacobi3d_cuda" stopped.
0x00007f7b63a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  Id   Target Id                                          Frame 
* 1    Thread 0x7f7b64503000 (LWP 2662) "jacobi3d_cuda"   0x00007f7b63a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  2    Thread 0x7f7b635ff000 (LWP 2664) "jacobi3d_cuda"   0x00007f7b63a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  3    Thread 0x7f7b62dfe000 (LWP 2665) "jacobi3d_cuda"   0x00007f7b63a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  4    Thread 0x7f7b625fd000 (LWP 2666) "jacobi3d_cuda"   0x00007f7b63a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  5    Thread 0x7f7b59bff000 (LWP 2667) "jacobi3d_cuda"   0x00007f7b3a814854 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
  6    Thread 0x7f7b61dfc000 (LWP 2668) "jacobi3d_cuda"   0x00007f7b3a81485b in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
  7    Thread 0x7f7b615fb000 (LWP 2669) "jacobi3d_cuda"   0x00007f7b63a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  8    Thread 0x7f7b60dfa000 (LWP 2670) "jacobi3d_cuda"   0x00007f7b3a81488e in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
  9    Thread 0x7f7b38278000 (LWP 2671) "cuda0000380000f" 0x00007f7b63b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
  10   Thread 0x7f7b36856000 (LWP 2675) "async"           0x00007f7b63b2a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6
  11   Thread 0x7f791bba6000 (LWP 2676) "cuda-EvtHandlr"  0x00007f7b63a98e51 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
  13   Thread 0x7f78bed2f000 (LWP 2739) "jacobi3d_cuda"   0x00007f7b63b2a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6

Thread 13 (Thread 0x7f78bed2f000 (LWP 2739) "jacobi3d_cuda"):
#0  0x00007f7b63b2a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f78bf25e796 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#2  0x00007f78bf25bcf9 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#3  0x00007f78bf25dd5a in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#4  0x00007f78bf26888a in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#5  0x00007f78bf268d9b in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#6  0x00007f78bf22190d in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#7  0x00007f78bf476dfd in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#8  0x00007f7b642b713a in ampi::core::(anonymous namespace)::thread_main(void*) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f7b63a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#10 0x00007f7b63b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 11 (Thread 0x7f791bba6000 (LWP 2676) "cuda-EvtHandlr"):
#0  0x00007f7b63a98e51 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f7b63a9b8cd in pthread_cond_wait () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f78bf25bddb in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#3  0x00007f78bf25dd5a in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#4  0x00007f78bf0431fd in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#5  0x00007f78bf0a5939 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#6  0x00007f78bee414dc in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#7  0x00007f78bf15e2a6 in ?? () from /usr/local/nvidia/lib64/libcudadebugger.so.1
#8  0x00007f7b3b30493b in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#9  0x00007f7b3a7ba9c4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#10 0x00007f7b3a6bad73 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#11 0x00007f7b642b713a in ampi::core::(anonymous namespace)::thread_main(void*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f7b63a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#13 0x00007f7b63b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 10 (Thread 0x7f7b36856000 (LWP 2675) "async"):
#0  0x00007f7b63b2a2d2 in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f7b6494dfb0 in ucs_event_set_wait () from /work/main/build-gpu/ucx-cuda/lib/libucs.so.0
#2  0x00007f7b64932090 in ?? () from /work/main/build-gpu/ucx-cuda/lib/libucs.so.0
#3  0x00007f7b63a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#4  0x00007f7b63b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 9 (Thread 0x7f7b38278000 (LWP 2671) "cuda0000380000f"):
#0  0x00007f7b63b1b79d in poll () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f7b3a6cdf27 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#2  0x00007f7b3a7ba967 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f7b3a6bad73 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f7b63a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#5  0x00007f7b63b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 8 (Thread 0x7f7b60dfa000 (LWP 2670) "jacobi3d_cuda"):
#0  0x00007f7b3a81488e in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#1  0x00007f7b3a5d36c3 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#2  0x00007f7b3a6121bb in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f7b3b351f17 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f7b3a7b9da0 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f7b3a635620 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f7b3a552b1d in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#7  0x00007f7b3a717b54 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#8  0x00007f7b3a704ff0 in cuEventQuery () from /usr/local/nvidia/lib64/libcuda.so.1
#9  0x00007f7b6429a8c6 in ampi::gpu::DevPtrCache::poll_copies_slow() () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f7b642a4725 in ampi::ucx::Transport::progress_net() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f7b642aeae7 in ampi::Pe::run() () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f7b642ba16f in (anonymous namespace)::run_pes(ampi::PeConfig const&, ampi::pmi::ProcessKeys*, int (*)(int, char**, char**), std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > const&, char**)::{lambda(int)#1}::operator()(int) const () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f7b63eecdb4 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#14 0x00007f7b63a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#15 0x00007f7b63b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 7 (Thread 0x7f7b615fb000 (LWP 2669) "jacobi3d_cuda"):
#0  0x00007f7b63a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f7b63aa296a in pthread_rwlock_rdlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f7b3a6a35e8 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f7b3a75d933 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f7b3a753a00 in cuEventRecord () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f7b64299ebb in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#6  0x00007f7b642d8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f7b642d91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f7b642a2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f7b642a2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f7b642ad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f7b643728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f7b642ae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f7b642b46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f7b6441d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f7b6442599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#16 0x0000000000000000 in ?? ()

Thread 6 (Thread 0x7f7b61dfc000 (LWP 2668) "jacobi3d_cuda"):
#0  0x00007f7b3a81485b in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#1  0x00007f7b3a5d36c3 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#2  0x00007f7b3a6121bb in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f7b3b351f17 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f7b3a7b9da0 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f7b3a635620 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f7b3a552b1d in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#7  0x00007f7b3a717b54 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#8  0x00007f7b3a704ff0 in cuEventQuery () from /usr/local/nvidia/lib64/libcuda.so.1
#9  0x00007f7b6429a8c6 in ampi::gpu::DevPtrCache::poll_copies_slow() () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f7b642a4725 in ampi::ucx::Transport::progress_net() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f7b642aeae7 in ampi::Pe::run() () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f7b642ba16f in (anonymous namespace)::run_pes(ampi::PeConfig const&, ampi::pmi::ProcessKeys*, int (*)(int, char**, char**), std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > const&, char**)::{lambda(int)#1}::operator()(int) const () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f7b63eecdb4 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6
#14 0x00007f7b63a9cb84 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#15 0x00007f7b63b29ecc in ?? () from /lib/x86_64-linux-gnu/libc.so.6

Thread 5 (Thread 0x7f7b59bff000 (LWP 2667) "jacobi3d_cuda"):
#0  0x00007f7b3a814854 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#1  0x00007f7b3a5d36c3 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#2  0x00007f7b3a6121bb in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f7b3b351f17 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f7b3b352365 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f7b3a5dfe24 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f7b3a6a66a3 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#7  0x00007f7b3a6a6a5c in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#8  0x00007f7b3a83e04c in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#9  0x00007f7b3a855a78 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#10 0x00007f7b3a81942f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#11 0x00007f7b3a81977f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#12 0x00007f7b3a6a23c2 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#13 0x00007f7b3b3695b8 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#14 0x00007f7b3a5aa9c1 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#15 0x00007f7b3a713079 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#16 0x00007f7b3a703c00 in cuStreamCreate () from /usr/local/nvidia/lib64/libcuda.so.1
#17 0x00007f7b64299ffa in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#18 0x00007f7b642d8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#19 0x00007f7b642d91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#20 0x00007f7b642a2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#21 0x00007f7b642a2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#22 0x00007f7b642ad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#23 0x00007f7b643728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#24 0x00007f7b642ae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#25 0x00007f7b642b46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#26 0x00007f7b6441d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#27 0x00007f7b6442599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#28 0x0000000000000000 in ?? ()

Thread 4 (Thread 0x7f7b625fd000 (LWP 2666) "jacobi3d_cuda"):
#0  0x00007f7b63a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f7b63aa341b in pthread_rwlock_wrlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f7b3b352bb4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f7b3a5aa95f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f7b3a713079 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f7b3a703c00 in cuStreamCreate () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f7b64299ffa in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f7b642d8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f7b642d91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f7b642a2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f7b642a2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f7b642ad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f7b643728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f7b642ae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f7b642b46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f7b6441d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#16 0x00007f7b6442599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#17 0x0000000000000000 in ?? ()

Thread 3 (Thread 0x7f7b62dfe000 (LWP 2665) "jacobi3d_cuda"):
#0  0x00007f7b63a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f7b63aa341b in pthread_rwlock_wrlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f7b3b352bb4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f7b3a5aa95f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f7b3a713079 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f7b3a703c00 in cuStreamCreate () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f7b64299ffa in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f7b642d8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f7b642d91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f7b642a2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f7b642a2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f7b642ad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f7b643728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f7b642ae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f7b642b46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f7b6441d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#16 0x00007f7b6442599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#17 0x0000000000000000 in ?? ()

Thread 2 (Thread 0x7f7b635ff000 (LWP 2664) "jacobi3d_cuda"):
#0  0x00007f7b63a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f7b63aa341b in pthread_rwlock_wrlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f7b3b352bb4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f7b3a5aa95f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f7b3a713079 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f7b3a703c00 in cuStreamCreate () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f7b64299ffa in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f7b642d8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f7b642d91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f7b642a2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f7b642a2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f7b642ad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f7b643728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f7b642ae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f7b642b46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f7b6441d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#16 0x00007f7b6442599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#17 0x0000000000000000 in ?? ()

Thread 1 (Thread 0x7f7b64503000 (LWP 2662) "jacobi3d_cuda"):
#0  0x00007f7b63a98d17 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f7b63aa341b in pthread_rwlock_wrlock () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007f7b3b352bb4 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#3  0x00007f7b3a5aa95f in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#4  0x00007f7b3a713079 in ?? () from /usr/local/nvidia/lib64/libcuda.so.1
#5  0x00007f7b3a703c00 in cuStreamCreate () from /usr/local/nvidia/lib64/libcuda.so.1
#6  0x00007f7b64299ffa in ampi::gpu::DevPtrCache::copy_async(void*, ampi::gpu::MemKind, void const*, ampi::gpu::MemKind, unsigned long, std::function<void ()>) () from /work/main/build-gpu/lib/libampi.so.0
#7  0x00007f7b642d8f03 in ampi::p2p::receive_ipc(ampi::p2p::Request&, ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#8  0x00007f7b642d91af in ampi::p2p::NetHandler::on_ipc_note(ampi::net::IpcNote const&) () from /work/main/build-gpu/lib/libampi.so.0
#9  0x00007f7b642a2722 in ampi::net::Port::deliver(ampi::net::AmKind, std::byte const*) () from /work/main/build-gpu/lib/libampi.so.0
#10 0x00007f7b642a2ee5 in ampi::net::Port::progress_local() () from /work/main/build-gpu/lib/libampi.so.0
#11 0x00007f7b642ad868 in ampi::Pe::block(char const*) () from /work/main/build-gpu/lib/libampi.so.0
#12 0x00007f7b643728cf in std::_Function_handler<void (), ampi::mpi::(anonymous namespace)::enqueue(char const*, bool, void*, int, int, int, int, int, int*)::{lambda()#2}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#13 0x00007f7b642ae089 in ampi::Pe::helper_loop(ampi::Pe::Helper&) () from /work/main/build-gpu/lib/libampi.so.0
#14 0x00007f7b642b46a0 in std::_Function_handler<void (), ampi::Pe::Helper::Helper(ampi::Pe&, ampi::ult::StackPool&)::{lambda()#1}>::_M_invoke(std::_Any_data const&) () from /work/main/build-gpu/lib/libampi.so.0
#15 0x00007f7b6441d579 in ampi::ult::Task::entry(boost::context::detail::transfer_t) () from /work/main/build-gpu/lib/libampi.so.0
#16 0x00007f7b6442599f in make_fcontext () from /work/main/build-gpu/lib/libampi.so.0
#17 0x0000000000000000 in ?? ()
[Inferior 1 (process 2662) detached]
